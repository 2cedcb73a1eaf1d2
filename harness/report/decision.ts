import type { Difference } from "../baseline/compat.ts";
import { compareSnapshots } from "../baseline/compare.ts";
import type { Delta } from "../baseline/diff.ts";
import type { CheckOutcome, GateResult } from "../baseline/gate.ts";
import type { Floor } from "../baseline/policy.ts";
import { describeSnapshot } from "../../src/formats/snapshot.ts";
import { snapshotOfLoaded } from "../baseline/io.ts";
import { gateVerdict, judge } from "../baseline/judge.ts";
import type { LoadedRun } from "../run/load.ts";
import { HEADLINE_METRICS, metricInfo, type Direction } from "../../src/metrics/catalogue.ts";
import { PACKAGED_POLICY } from "../package.ts";

/** What a report is asked to decide against: a published baseline and the pre-registered policy. */
export interface DecisionInput {
  baseline: string;
  policy: string;
}

/** One row of the forest plot: a metric's change against the baseline, in the metric's own units. */
export interface ForestRow {
  metric: string;
  direction: Direction;
  meaning: string;
  baseline: number | null;
  candidate: number | null;
  /** Candidate − baseline: the paired per-item mean where the metric has per-item values, else the difference of the run values. */
  delta: number | null;
  /** Two-sided 95% paired t-interval of the delta (null when unpaired or below two items). */
  ci_low: number | null;
  ci_high: number | null;
  n_items: number;
  paired: boolean;
  /** The gate's non-inferiority check of this metric, when the policy has one. */
  gate: {
    outcome: CheckOutcome;
    /** The gate's one-sided bound, in the metric's units: an upper bound for lower-is-better metrics, a lower bound otherwise. */
    bound: number | null;
    /** Where the margin sits on the delta axis: +margin for lower-is-better, −margin for higher-is-better. */
    margin: number;
    p_holm: number | null;
    message: string;
  } | null;
  /** The gate's absolute floor on this metric (judged on the candidate alone), when the policy has one. */
  floor: { outcome: CheckOutcome; max: number | null; min: number | null; on: Floor["on"]; message: string } | null;
}

export interface Decision {
  baseline: { file: string; name: string; run_id: string | null };
  policy: { file: string };
  /** Exactly what `fieldtest gate` decides and prints (same function, same inputs). */
  result: GateResult;
  verdict: string;
  differences: Difference[];
  deltas: { counts: Record<string, number>; unexplained: Delta[] };
  forest: ForestRow[];
}

/** The value of `--name VALUE` or `--name=VALUE` in a command line; null when absent. */
function optionValue(argv: readonly string[], name: string): string | null {
  for (let i = argv.length - 1; i >= 0; i--) {
    const a = argv[i]!;
    if (a === name && i + 1 < argv.length) return argv[i + 1]!;
    if (a.startsWith(`${name}=`)) return a.slice(name.length + 1);
  }
  return null;
}

/**
 * The decision input a run's reports were asked for (`fieldtest run --baseline FILE [--policy
 * FILE]`), from the command lines its manifest records, the latest session's first; null when no
 * session asked. A resume writes the reports again, and they keep leading with the decision.
 */
export function recordedDecisionInput(m: { command: readonly string[]; sessions: readonly { command: readonly string[] }[] }): DecisionInput | null {
  for (const argv of [...m.sessions.map((s) => s.command).reverse(), m.command]) {
    const baseline = optionValue(argv, "--baseline");
    if (baseline !== null) return { baseline, policy: optionValue(argv, "--policy") ?? PACKAGED_POLICY };
  }
  return null;
}

/** Permutation re-splits of the comparison behind the forest plot (only its paired deltas are read). */
const COMPARE_REPS = 200;

/**
 * The release decision for a loaded run: the gate's own evaluation (harness/baseline/judge.ts,
 * which `fieldtest gate` also calls) plus a forest plot of every headline and every gated metric,
 * whose intervals are the model-swap comparison's paired deltas and whose bounds and margins are
 * the gate's.
 */
export function decide(run: LoadedRun, input: DecisionInput): Decision {
  const j = judge(snapshotOfLoaded(run), input.baseline, input.policy);
  const compared = new Map(compareSnapshots(j.candidate, j.baseline, { reps: COMPARE_REPS }).metrics.map((m) => [m.metric, m]));
  const margins = new Map(j.policy.non_inferiority.map((m) => [m.metric, m]));
  const checks = new Map(j.result.checks.filter((c) => c.kind === "non_inferiority").map((c) => [c.name, c]));
  const floorChecks = new Map(j.result.checks.filter((c) => c.kind === "floor").map((c) => [c.name, c]));
  const floors = new Map(j.policy.floors.map((f) => [f.metric, f]));
  const gated = [...new Set([...margins.keys(), ...floors.keys()])];
  const names = [...HEADLINE_METRICS.filter((m) => m in j.candidate.metrics || gated.includes(m)), ...gated.filter((m) => !HEADLINE_METRICS.includes(m))];
  const forest = names.map((metric): ForestRow => {
    const info = metricInfo(metric);
    const b = j.baseline.metrics[metric]?.value ?? null;
    const a = j.candidate.metrics[metric]?.value ?? null;
    const c = compared.get(metric);
    const paired = c !== undefined && c.n_items > 0;
    const margin = margins.get(metric);
    const check = checks.get(metric);
    const sign = margin?.direction === "higher_is_better" ? -1 : 1;
    const floor = floors.get(metric);
    const floorCheck = floorChecks.get(`floor:${metric}`);
    return {
      metric,
      direction: info.direction,
      meaning: info.meaning,
      baseline: b,
      candidate: a,
      delta: paired ? c.delta : a !== null && b !== null ? a - b : null,
      ci_low: paired ? c.ci_low : null,
      ci_high: paired ? c.ci_high : null,
      n_items: c?.n_items ?? 0,
      paired,
      gate:
        margin && check
          ? {
              outcome: check.outcome,
              bound: check.delta?.upper === undefined || check.delta.upper === null ? null : sign * check.delta.upper,
              margin: sign * margin.margin,
              p_holm: check.delta?.p_holm ?? null,
              message: check.message,
            }
          : null,
      floor:
        floor && floorCheck ? { outcome: floorCheck.outcome, max: floor.max ?? null, min: floor.min ?? null, on: floor.on, message: floorCheck.message } : null,
    };
  });
  return {
    baseline: { file: input.baseline, name: j.baseline.name, run_id: describeSnapshot(j.baseline) },
    policy: { file: input.policy },
    result: j.result,
    verdict: gateVerdict(j.result),
    differences: j.diff.differences,
    deltas: { counts: j.diff.counts, unexplained: j.diff.unexplained },
    forest,
  };
}

const SEVERITY: Record<string, number> = { pass: 0, inconclusive: 1, fail: 2, error: 3 };

/** The worst of the gate's outcomes for a metric (margin and floor); null when the policy does not gate it. */
export function gateOutcome(r: ForestRow): string | null {
  const outcomes = [r.gate?.outcome, r.floor?.outcome].filter((o): o is NonNullable<typeof o> => o !== undefined);
  return outcomes.length ? outcomes.reduce((a, b) => (SEVERITY[b]! > SEVERITY[a]! ? b : a)) : null;
}
