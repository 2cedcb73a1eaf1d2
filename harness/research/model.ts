import { quantileSorted } from "simple-statistics";
import { BLOCKER_ELIGIBLE_FAMILIES, FAMILIES } from "../../src/formats/enums.ts";
import { EVIDENCE_STATUSES } from "../../src/formats/findings.ts";
import { itemMeanMetric } from "../../src/metrics/estimate.ts";
import { DOWNGRADE_GROUPS, downgradeRates, familyGroup, unsupportedEvidence } from "../../src/metrics/evidence.ts";
import type { FamilyConfusion } from "../../src/metrics/ground-truth.ts";
import { groupTrials } from "../../src/metrics/items.ts";
import { criticFindings, rawSeverityIsBlocker } from "../../src/metrics/trial-facts.ts";
import type { EstimateContext, MetricValue } from "../../src/metrics/types.ts";
import { compareSnapshots, type Comparison } from "../baseline/compare.ts";
import type { Snapshot } from "../../src/formats/snapshot.ts";
import { detectableSummary, trend, type Detectable, type DetectableSummary, type MetricFamily, type MetricTrend } from "../baseline/trend.ts";
import { simProfileOf, type LoadedRun } from "../run/load.ts";
import { modelLabel } from "../report/format.ts";
import { HEADLINE_METRICS, metricInfo, type Direction } from "../../src/metrics/catalogue.ts";

/**
 * The research report across runs (pure): headline metrics over runs with the drift charts'
 * reference and alarms, the critic's own behaviour over runs (downgrades per family, evidence
 * status, advisory blockers: the early judge-drift signal), per-run confusion, cost and latency,
 * a model-swap comparison of two runs, and the runs grouped by critic prompt variant. Every
 * number comes from the metrics, trend and compare code the other commands use.
 */

export interface ResearchRun {
  label: string;
  run: LoadedRun;
  snapshot: Snapshot;
}

interface RunInfo {
  label: string;
  dir: string;
  run_id: string;
  started_at: string;
  suites: string[];
  planner: string;
  critic: string;
  /** SHA-256 of the critic's system prompt as the manifest records it; null when not recorded. */
  critic_prompt: string | null;
  planner_prompt: string | null;
  mode: string;
  max_rounds: number;
  sim_profile: string | null;
  trials: number;
  items: number;
  calls: number;
}

export interface Point {
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
  n_items: number;
}

export interface MetricSeries {
  metric: string;
  /** The pre-registered headline family (the gate policy's metrics) or the exploratory rest: Holm runs within each. */
  family: MetricFamily;
  direction: Direction;
  meaning: string;
  /**
   * The drift charts' fixed in-control reference (`fieldtest trend`): the baseline's runs, or the
   * history's first runs. mu0 is its mean; sigma0 the SD of one run the last shift test used (for
   * a rate tested by its counts the binomial SD at the pooled rate; for a paired test the sampling
   * SD, or the baseline's between-run SD when larger), else the reference's between-run SD.
   */
  reference: { source: "baseline" | "first_runs"; runs: number; mu0: number | null; sigma0: number | null };
  note: string | null;
  /** The smallest harmful shifts the charts catch (a headline rate judged by Fisher's test of its counts), else null. */
  detectable: Detectable | null;
  points: (Point & { alerts: string[]; reference_run: boolean })[];
}

/** One drift alarm: which metric, on which run, by which charts, and how big. */
interface Alarm {
  metric: string;
  family: MetricFamily;
  /** Index of the run in `runs`. */
  run: number;
  charts: string[];
  value: number | null;
  reference_mean: number | null;
  /** The tested difference (the run or the mean of the last runs minus the reference) and its normal score. */
  delta: number | null;
  z: number | null;
}

/** The critic's behaviour over every completed audit of a run, whatever the suite. */
interface CriticDrift {
  audits: number[];
  /** `downgrade_rate` and `downgrade_rate.<family>` over every raw blocker of every audit (not only boundary trials). */
  downgrade: Record<string, Point[]>;
  unsupported_evidence: Point[];
  /** Raw blockers in families that may not block (risk, missing_steps) per completed audit, mean over items. */
  advisory_blockers_per_audit: Point[];
  /** Raw blockers per family, and findings per evidence status, summed per run. */
  raw_blockers: Record<string, number[]>;
  evidence_status: Record<string, number[]>;
}

interface Operations {
  /**
   * What the run spent, from its spend journal (every session, killed ones and dropped trials
   * included, as the run report shows it); null without a journal (an imported run), never 0.
   */
  cost_usd: (number | null)[];
  /** Whether that spend is only a lower bound (calls of unknown cost: no usage, a timeout, in flight at a crash). */
  cost_is_lower_bound: boolean[];
  latency_ms_p50: (number | null)[];
  latency_ms_p95: (number | null)[];
  calls_per_trial: (number | null)[];
  /**
   * The engine's group figures per run, from its summary's operational metrics over the goals
   * (corpus or imported): trial latency p50 by status, and over decided trials distinct blockers
   * per goal by origin, escalations per 100 goals, critic calls per goal. An imported run's are
   * what its traces show (its trials whose outcome no trace records are errors, left out).
   */
  engine: {
    latency_ms_p50: Record<"approved" | "escalated", (number | null)[]>;
    blockers_per_goal: Record<"gate" | "critic", Point[]>;
    escalations_per_100_goals: Point[];
    critic_calls_per_goal: Point[];
  };
}

/** Runs that share a critic system prompt, pooled: what the prompt itself did. */
interface PromptVariant {
  critic_prompt: string | null;
  runs: string[];
  audits: number;
  raw_blockers: number;
  advisory_raw_blockers: number;
  advisory_blockers_per_audit: number | null;
  /** Σ downgraded / Σ raw blockers over the variant's runs, overall and per family (null without raw blockers). */
  downgrade_rate: Record<string, number | null>;
}

export interface Research {
  schema_version: 1;
  runs: RunInfo[];
  /** Every drift alarm, headline family first, then by run. */
  alarms: Alarm[];
  /** What the charts could catch of the headline rates (beside the alarm count: "0 alarms" then says how large a shift it would have seen); null when no rate has it. */
  detectable: DetectableSummary | null;
  metrics: MetricSeries[];
  /** What every run is judged against, for people. */
  reference: string;
  trend_caveat: string;
  critic: CriticDrift;
  confusion: { label: string; confusion: FamilyConfusion; defects: number }[];
  operations: Operations;
  prompts: PromptVariant[];
  swap: { a: string; b: string; comparison: Comparison } | null;
}

interface ResearchOptions {
  /** A fixed drift reference (a published baseline); null: the first `referenceRuns` runs. */
  baseline: Snapshot | null;
  referenceRuns: number;
  window: number;
  /** The pre-registered headline family (the gate policy's metrics). */
  headline: readonly string[];
  /** Chart only these metrics (default every metric of the runs). */
  metrics?: readonly string[];
  /** Labels of the model-swap pair (A candidate, B reference); null: no comparison. */
  swap: { a: string; b: string } | null;
  reps: number;
  seed: number;
}

const ADVISORY = FAMILIES.filter((f) => !BLOCKER_ELIGIBLE_FAMILIES.includes(f)) as string[];

const point = (m: Pick<MetricValue, "value" | "ci_low" | "ci_high" | "n_items"> | undefined): Point => ({
  value: m?.value ?? null,
  ci_low: m?.ci_low ?? null,
  ci_high: m?.ci_high ?? null,
  n_items: m?.n_items ?? 0,
});

function runInfo(r: ResearchRun): RunInfo {
  const m = r.run.manifest;
  const prompt = (role: "planner" | "critic") => (m.roles[role] as { prompt?: { system_sha256?: string | null } }).prompt?.system_sha256 ?? null;
  return {
    label: r.label,
    dir: r.run.dir,
    run_id: m.run_id,
    started_at: m.started_at,
    suites: [...m.config.suites],
    planner: modelLabel(m.roles.planner),
    critic: modelLabel(m.roles.critic),
    critic_prompt: prompt("critic"),
    planner_prompt: prompt("planner"),
    mode: m.config.mode,
    max_rounds: m.config.maxRounds,
    sim_profile: simProfileOf(r.run)?.name ?? null,
    trials: r.run.trials.length,
    items: r.snapshot.items.length,
    calls: m.totals.calls,
  };
}

/** Per run: every critic finding of every completed audit, counted and rated over all items. */
function criticOf(r: ResearchRun): {
  audits: number;
  downgrade: Record<string, MetricValue>;
  unsupported: MetricValue;
  advisory: MetricValue;
  raw: Record<string, number>;
  status: Record<string, number>;
  advisoryRaw: number;
} {
  // The run summary's own estimate settings, so these intervals are made as its metrics' are.
  const ctx: EstimateContext = { conf: r.run.summary.conf, seed: r.run.summary.seed, reps: r.run.summary.bootstrap_reps };
  const items = groupTrials(r.run.trials);
  const raw: Record<string, number> = {};
  const status: Record<string, number> = {};
  let audits = 0;
  let advisoryRaw = 0;
  const perItem = items.flatMap((item) => {
    let itemAudits = 0;
    let itemAdvisory = 0;
    for (const t of item.trials) {
      itemAudits += t.rounds.filter((round) => round.critic?.outcome === "ok").length;
      for (const f of criticFindings(t)) {
        status[f.evidence_status] = (status[f.evidence_status] ?? 0) + 1;
        if (!rawSeverityIsBlocker(f)) continue;
        raw[familyGroup(f)] = (raw[familyGroup(f)] ?? 0) + 1;
        if (ADVISORY.includes(f.family)) itemAdvisory++;
      }
    }
    audits += itemAudits;
    advisoryRaw += itemAdvisory;
    // Counted per audit: the audits are its units (gates-first trials whose gates blocked have none), so its exact bound at 0 is over them.
    return itemAudits === 0 ? [] : [{ value: itemAdvisory / itemAudits, trials: itemAudits, cluster: item.cluster }];
  });
  return {
    audits,
    downgrade: downgradeRates(items, ctx),
    unsupported: unsupportedEvidence(items, ctx).unsupported_evidence_rate!,
    advisory: itemMeanMetric(perItem, ctx, [0, Number.POSITIVE_INFINITY]),
    raw,
    status,
    advisoryRaw,
  };
}

const quantile = (values: number[], p: number) =>
  values.length === 0
    ? null
    : quantileSorted(
        [...values].sort((a, b) => a - b),
        p,
      );

function promptVariants(runs: readonly ResearchRun[], infos: readonly RunInfo[], critic: ReturnType<typeof criticOf>[]): PromptVariant[] {
  const keys = [...new Set(infos.map((i) => i.critic_prompt))];
  return keys.map((key) => {
    const idx = infos.map((info, i) => (info.critic_prompt === key ? i : -1)).filter((i) => i >= 0);
    const sum = (f: (c: ReturnType<typeof criticOf>) => number) => idx.reduce((n, i) => n + f(critic[i]!), 0);
    const audits = sum((c) => c.audits);
    const rate = (k: string) => {
      const den = sum((c) => c.downgrade[k]?.denominator ?? 0);
      return den === 0 ? null : sum((c) => c.downgrade[k]?.numerator ?? 0) / den;
    };
    return {
      critic_prompt: key,
      runs: idx.map((i) => runs[i]!.label),
      audits,
      raw_blockers: sum((c) => Object.values(c.raw).reduce((a, b) => a + b, 0)),
      advisory_raw_blockers: sum((c) => c.advisoryRaw),
      advisory_blockers_per_audit: audits === 0 ? null : sum((c) => c.advisoryRaw) / audits,
      downgrade_rate: Object.fromEntries(["downgrade_rate", ...DOWNGRADE_GROUPS.map((g) => `downgrade_rate.${g}`)].map((k) => [k, rate(k)])),
    };
  });
}

/** The SD of one run the metric's last shift test used, else the reference's between-run SD. */
function sigma0(tm: MetricTrend): number | null {
  return [...tm.points].reverse().find((p) => p.shift !== null && p.shift.sd_run !== null)?.shift!.sd_run ?? tm.reference.sd;
}

/** The research model over runs in the order given (oldest first). */
export function research(runs: readonly ResearchRun[], o: ResearchOptions): Research {
  const infos = runs.map(runInfo);
  const t = trend(
    runs.map((r) => ({ ...r.snapshot, runs: [{ ...r.snapshot.runs[0]!, run_id: r.label }] })),
    o.baseline,
    { window: o.window, referenceRuns: o.referenceRuns, headline: o.headline, ...(o.metrics ? { metrics: o.metrics } : {}) },
  );
  const alarming = new Set(t.alerts.map((a) => a.metric));
  // The headline family first, then the catalogue's headline metrics and any other metric that alarmed.
  const shown = [...t.families.headline, ...HEADLINE_METRICS, ...t.metrics.map((m) => m.metric).filter((m) => alarming.has(m))];
  const charted = new Map(t.metrics.filter((m) => m.points.some((p) => p.value !== null)).map((m) => [m.metric, m]));
  const metrics = [...new Set(shown)].flatMap((metric): MetricSeries[] => {
    const tm = charted.get(metric);
    if (!tm) return [];
    const info = metricInfo(metric);
    return [
      {
        metric,
        family: tm.family,
        direction: info.direction,
        meaning: info.meaning,
        reference: { source: t.reference.source, runs: t.reference.runs, mu0: tm.reference.mean, sigma0: sigma0(tm) },
        note: tm.note,
        detectable: tm.detectable,
        points: runs.map((r, i) => ({ ...point(r.snapshot.metrics[metric]), alerts: tm.points[i]!.alerts, reference_run: tm.points[i]!.reference_run })),
      },
    ];
  });
  const alarms = t.metrics
    .flatMap((m) =>
      m.points.flatMap((p, i): Alarm[] => {
        if (p.alerts.length === 0) return [];
        const tested = p.shift && p.alerts.includes("shift") ? p.shift : (p.sustained ?? p.shift);
        return [
          {
            metric: m.metric,
            family: m.family,
            run: i,
            charts: p.alerts,
            value: p.value,
            reference_mean: m.reference.mean,
            delta: tested?.delta ?? null,
            z: tested?.z ?? null,
          },
        ];
      }),
    )
    .sort((a, b) => (a.family === b.family ? a.run - b.run : a.family === "headline" ? -1 : 1));
  const critic = runs.map(criticOf);
  const perRun = <T>(f: (c: ReturnType<typeof criticOf>) => T) => critic.map(f);
  const swap = o.swap === null ? null : swapOf(runs, o.swap, o);
  const operational = (key: string) => runs.map((r) => point(r.run.summary.operational[key]));
  return {
    schema_version: 1,
    runs: infos,
    alarms,
    detectable: detectableSummary(t),
    metrics,
    reference: t.reference.description,
    trend_caveat: t.caveat,
    critic: {
      audits: perRun((c) => c.audits),
      downgrade: Object.fromEntries(
        ["downgrade_rate", ...DOWNGRADE_GROUPS.map((g) => `downgrade_rate.${g}`)].map((k) => [k, perRun((c) => point(c.downgrade[k]))]),
      ),
      unsupported_evidence: perRun((c) => point(c.unsupported)),
      advisory_blockers_per_audit: perRun((c) => point(c.advisory)),
      raw_blockers: Object.fromEntries(DOWNGRADE_GROUPS.map((g) => [g, perRun((c) => c.raw[g] ?? 0)])),
      evidence_status: Object.fromEntries(EVIDENCE_STATUSES.map((s) => [s, perRun((c) => c.status[s] ?? 0)])),
    },
    confusion: runs.map((r) => ({
      label: r.label,
      confusion: r.run.summary.family_confusion,
      defects: r.run.summary.family_confusion.counts.flat().reduce((a, b) => a + b, 0),
    })),
    operations: {
      cost_usd: runs.map((r) => r.run.spend?.cost_usd ?? null),
      cost_is_lower_bound: runs.map((r) => r.run.spend?.cost_usd_is_lower_bound ?? false),
      latency_ms_p50: runs.map((r) =>
        quantile(
          r.run.trials.map((x) => x.latency_ms),
          0.5,
        ),
      ),
      latency_ms_p95: runs.map((r) =>
        quantile(
          r.run.trials.map((x) => x.latency_ms),
          0.95,
        ),
      ),
      calls_per_trial: runs.map((r) => (r.run.trials.length === 0 ? null : r.run.trials.reduce((n, x) => n + x.calls.length, 0) / r.run.trials.length)),
      engine: {
        latency_ms_p50: {
          approved: operational("latency_ms_p50.approved").map((p) => p.value),
          escalated: operational("latency_ms_p50.escalated").map((p) => p.value),
        },
        blockers_per_goal: { gate: operational("blockers_per_goal.gate"), critic: operational("blockers_per_goal.critic") },
        escalations_per_100_goals: operational("escalations_per_100_goals"),
        critic_calls_per_goal: operational("llm_calls_per_decided_goal.critic"),
      },
    },
    prompts: promptVariants(runs, infos, critic),
    swap,
  };
}

function swapOf(runs: readonly ResearchRun[], pair: { a: string; b: string }, o: ResearchOptions): Research["swap"] {
  const find = (label: string) => runs.find((r) => r.label === label);
  const a = find(pair.a);
  const b = find(pair.b);
  if (!a || !b) return null;
  return { a: a.label, b: b.label, comparison: compareSnapshots(a.snapshot, b.snapshot, { reps: o.reps, seed: o.seed }) };
}
