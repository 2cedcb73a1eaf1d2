import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { FixtureSchema, type Fixture } from "../../src/formats/fixture.ts";
import { CorpusGoalSchema, type CorpusGoal } from "../../src/formats/goal.ts";
import { loadCorpus } from "../../harness/corpus/load.ts";
import type { TrialRecord } from "../../src/formats/records.ts";
import { NO_SPEND } from "../../harness/run/journal.ts";
import { ManifestSchema, type Manifest } from "../../src/formats/manifest.ts";
import { buildSnapshot, poolTrials } from "../../harness/baseline/snapshot.ts";
import type { Snapshot } from "../../src/formats/snapshot.ts";
import { summarize } from "../../src/metrics/summary.ts";
import { makeGoal, makePlan, mutate, read } from "../helpers/plans.ts";

/** Hand-built runs for baseline, diff, gate and compare tests: a manifest and trial records. */

export interface ItemSpec {
  suite: "boundary" | "corpus";
  id: string;
  /** One verdict label per trial: block | pass | unavailable (boundary), approved | escalated | error (corpus). */
  verdicts: string[];
  /** Blocker keys per trial (defaults to one key on blocking trials). */
  keys?: string[][];
  hash?: string;
}

const PLAN = makePlan([read("inspect"), mutate("change")]);

function makeTrial(spec: ItemSpec, trial: number): TrialRecord {
  const label = spec.verdicts[trial]!;
  const blocking = label === "block" || label === "escalated";
  const keys = spec.keys?.[trial] ?? (blocking ? [`critic:weak_rollback:change:missing_rollback:change`] : []);
  const boundary = spec.suite === "boundary";
  const status = boundary ? (label === "unavailable" || blocking ? "escalated" : "approved") : (label as TrialRecord["status"]);
  return {
    schema_version: 1,
    suite: spec.suite,
    item_id: spec.id,
    trial,
    status,
    escalation_reason: status === "escalated" ? "revision_cap_reached" : null,
    escalation_reasons: status === "escalated" ? ["revision_cap_reached"] : [],
    error: status === "error" ? "boom" : null,
    item_hash: spec.hash ?? `hash-${spec.id}`,
    rounds: [
      {
        index: 0,
        plan: PLAN,
        structural_hash: "s",
        gate_findings: [],
        repairs: [],
        critic:
          label === "unavailable" ? { outcome: "critic_unavailable", reason: "invalid_output", raw_text: "x", findings: [], malformed_findings: 0 } : null,
        carried_forward: [],
        blocker_keys: keys,
        decision: blocking ? "escalate" : "approve",
        reason: null,
      },
    ],
    critic_verdict: boundary ? (label as TrialRecord["critic_verdict"]) : null,
    verdict: blocking ? "escalate" : "approve",
    calls: [],
    cost_usd: 0,
    latency_ms: 100 + 10 * trial,
    started_at: "2026-12-01T00:00:00.000Z",
    finished_at: "2026-12-01T00:00:01.000Z",
  };
}

export function makeTrials(items: ItemSpec[]): TrialRecord[] {
  return items.flatMap((spec) => spec.verdicts.map((_, t) => makeTrial(spec, t)));
}

const ROLE = {
  base_url: null,
  temperature: 0.2,
  top_p: null,
  seed: null,
  max_tokens: null,
  prompt: { version: "1", system_sha256: "sys", user_template_sha256: { review: "tpl" }, schema_sha256: "sch" },
};

export function makeManifest(items: ItemSpec[], patch: (m: Manifest) => void = () => {}): Manifest {
  const manifest = ManifestSchema.parse({
    schema_version: 2,
    run_id: "run-1",
    state: "completed",
    started_at: "2026-12-01T00:00:00.000Z",
    finished_at: "2026-12-01T00:01:00.000Z",
    harness: { name: "fieldtest", version: "0.1.0" },
    git: { sha: null, dirty: null },
    node: "v20",
    command: ["fieldtest", "run"],
    config: {
      suites: ["corpus", "boundary"],
      only: null,
      domain: null,
      category: null,
      trials: items[0]?.verdicts.length ?? 1,
      seed: 0,
      mode: "gates-first",
      maxRounds: 4,
      client: { planner: { provider: "sim", model: "sim-planner" }, critic: { provider: "sim", model: "sim-critic" } },
    },
    config_hash: "cfg",
    fingerprint: {},
    gate_versions: { ordering_sane: "1", rollback_present: "1" },
    price_table_version: null,
    roles: {
      planner: { provider: "sim", model: "sim-planner", ...structuredClone(ROLE) },
      critic: { provider: "sim", model: "sim-critic", ...structuredClone(ROLE) },
    },
    corpus: { hash: "corpus-hash", items: Object.fromEntries(items.map((i) => [`${i.suite}/${i.id}`, i.hash ?? `hash-${i.id}`])) },
    plan: { items: items.map((i) => `${i.suite}/${i.id}`), trials: items[0]?.verdicts.length ?? 1, planned: 0, shard: null, shard_planned: 0 },
    operational: { concurrency: 1, budget_usd: null, max_calls: null },
    canary: { ok: true, failures: [], results: null },
    sessions: [],
    spend: NO_SPEND,
    withheld_credentials: [],
    totals: { recorded: 0, errors: 0, calls: 0, cost_usd: 0 },
    merged_from: null,
  });
  patch(manifest);
  return manifest;
}

/** A boundary fixture: seeded (a rollback defect on `change`) or a clean control. */
export function makeFixture(id: string, seeded: boolean): Fixture {
  return FixtureSchema.parse({
    id,
    description: `fixture ${id}`,
    group: `g-${id}`,
    goal: makeGoal(),
    plan: makePlan([read("inspect"), mutate("change", { risk: "high" })]),
    seeded_defects: seeded ? [{ task: "change", family: "weak_rollback", claim: { kind: "missing_rollback", tasks: ["change"] }, gate_visible: false }] : [],
    expected_verdict: { strict: seeded ? "escalate" : "approve", balanced: seeded ? "escalate" : "approve" },
    expected_critic_verdict: { strict: seeded ? "block" : "pass", balanced: seeded ? "block" : "pass" },
  });
}

/**
 * A snapshot of one run of `items`, or of several runs pooled (one item list per run, each run its
 * own seed), with the metrics the summary computes; `patch` edits every run's manifest, `edit` every trial.
 */
export function makeSnapshot(
  runs: ItemSpec[] | ItemSpec[][],
  fixtures: Fixture[],
  patch: (m: Manifest) => void = () => {},
  edit: (t: TrialRecord) => void = () => {},
): Snapshot {
  const lists = (Array.isArray(runs[0]) ? runs : [runs]) as ItemSpec[][];
  const parts = lists.map((specs, r) => {
    const trials = makeTrials(specs);
    trials.forEach(edit);
    const manifest = makeManifest(specs, (m) => {
      m.run_id = `run-${r + 1}`;
      m.config.seed = r;
      patch(m);
    });
    return { manifest, trials, metrics: summarize({ trials, fixtures, goals: [] }, { seed: 0, bootstrapReps: 100 }).metrics };
  });
  const pooled =
    parts.length === 1
      ? parts[0]!.metrics
      : summarize({ trials: poolTrials(parts.map((p) => p.trials)), fixtures, goals: [] }, { seed: 0, bootstrapReps: 100 }).metrics;
  return buildSnapshot({ name: "t", runs: parts, fixtures, metrics: pooled });
}

/** A corpus goal for engine (corpus-suite) items. */
export function makeCorpusGoal(id: string): CorpusGoal {
  return CorpusGoalSchema.parse({
    ...makeGoal([], { id, domain: "test" }),
    category: "balanced",
    expect: { verdict: "approve" },
  });
}

/** Write a corpus (boundary fixtures and goals) as YAML under `root`; returns its item hashes. */
export function writeCorpus(root: string, fixtures: Fixture[], goals: CorpusGoal[]): Record<string, string> {
  mkdirSync(join(root, "boundary"), { recursive: true });
  mkdirSync(join(root, "goals", "test"), { recursive: true });
  for (const f of fixtures) writeFileSync(join(root, "boundary", `${f.id}.yaml`), stringify(f));
  for (const g of goals) writeFileSync(join(root, "goals", "test", `${g.id}.yaml`), stringify(g));
  return loadCorpus(root).itemHashes;
}

/**
 * Write a run directory (manifest.json, trials.jsonl) for `items`, with item hashes taken from the
 * corpus so that the report's ground truth applies; `patch` edits the manifest, `edit` the trials.
 */
export function writeRunDir(
  dir: string,
  items: ItemSpec[],
  itemHashes: Record<string, string>,
  patch: (m: Manifest) => void = () => {},
  edit: (t: TrialRecord) => void = () => {},
): void {
  const hashed = items.map((i) => ({ ...i, hash: i.hash ?? itemHashes[`${i.suite}/${i.id}`] }));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(makeManifest(hashed, patch)));
  const trials = makeTrials(hashed);
  trials.forEach(edit);
  writeFileSync(join(dir, "trials.jsonl"), trials.map((t) => JSON.stringify(t)).join("\n") + "\n");
}

type Value = number | null | { value: number; numerator: number; denominator: number };

const metricOf = (v: Value) => {
  const m = v === null || typeof v === "number" ? { value: v } : v;
  return { ci_low: null, ci_high: null, n_items: 10, n_trials: 50, ...m };
};

/**
 * A synthetic snapshot holding only metrics (for trend tests): one run with these values, or, with
 * `perRun`, a multi-run baseline whose `between_runs` holds each run's value.
 */
export function metricSnapshot(name: string, values: Record<string, Value>, perRun: Record<string, Value[]> = {}): Snapshot {
  const base = makeSnapshot([{ suite: "boundary", id: "x", verdicts: ["block"] }], [makeFixture("x", true)]);
  const runs = Math.max(1, ...Object.values(perRun).map((v) => v.length));
  const between = Object.fromEntries(
    Object.entries(perRun).map(([metric, list]) => {
      const ms = list.map(metricOf);
      const known = ms.map((m) => m.value).filter((v): v is number => v !== null);
      const mean = known.reduce((a, b) => a + b, 0) / known.length;
      const sd = known.length < 2 ? null : Math.sqrt(known.reduce((a, b) => a + (b - mean) ** 2, 0) / (known.length - 1));
      return [
        metric,
        {
          values: ms.map((m) => m.value),
          numerators: ms.map((m) => ("numerator" in m ? m.numerator : null)),
          denominators: ms.map((m) => ("denominator" in m ? m.denominator : null)),
          n: known.length,
          mean,
          sd,
        },
      ];
    }),
  );
  return {
    ...base,
    name,
    runs: Array.from({ length: runs }, (_, i) => ({ ...base.runs[0]!, run_id: runs === 1 ? name : `${name}-${i}` })),
    items: [],
    metrics: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, metricOf(v)])),
    between_runs: between,
  };
}
