import { z } from "zod";
import { SUITES } from "./records.ts";
import { MetricCoreSchema } from "./summary.ts";
import { VERDICT_CATEGORIES } from "../metrics/trial-facts.ts";

/** `{value, ci_low, ci_high, n_items, n_trials}` (docs/design.md §10), with `numerator`/`denominator` on rates of events. */
const MetricSchema = MetricCoreSchema;
export type Metric = z.output<typeof MetricSchema>;

/** The request-side decision context of one role, as the run's manifest records it (docs/design.md §7). */
const RoleContextSchema = z.strictObject({
  provider: z.string().nullable(),
  base_url: z.string().nullable(),
  model: z.string().nullable(),
  temperature: z.number().nullable(),
  top_p: z.number().nullable(),
  seed: z.number().nullable(),
  max_tokens: z.number().nullable(),
  system_prompt_sha256: z.string().nullable(),
  user_template_sha256: z.string().nullable(),
  schema_sha256: z.string().nullable(),
  /** The sim provider's behaviour for this role (its profile section and code version, hashed); null for real providers. */
  sim_profile_sha256: z.string().nullable(),
});
export type RoleContext = z.output<typeof RoleContextSchema>;

const counts = z.record(z.string(), z.number().int().min(0));

/** The verdicts an item's trials are counted by, in either scheme (the metrics' own categories). */
const COUNTED_VERDICTS = Object.values(VERDICT_CATEGORIES).flat();
/** Every label a trial can have (verdictLabel): the counted verdicts, and the outcomes left out of them. */
const VERDICT_LABELS = [...COUNTED_VERDICTS, "unavailable", "error"];

/**
 * One item reduced over its trials (of every pooled run): the metrics' ItemSummary plus the
 * item's content hash, its cluster (fixture group) and its per-item metric values.
 * `verdict_counts` cover every label (boundary: critic_verdict block | pass | unavailable;
 * corpus: status escalated | approved | error, or unavailable when a critic audit or the planner
 * was unavailable); `modal_verdict` and `unanimous` are over the counted ones;
 * `blocker_key_counts[k]` is the number of counted trials in which blocker key k blocked in some
 * round (the trials `modal_verdict` is over, so the key tests and the verdict test share them);
 * `values[metric]` is the item's own value of each per-item metric it belongs to, for paired deltas
 * (with several runs, the mean of each run's own value, so it compares like with like with one run);
 * `ratios[metric]` its counts behind each ratio metric.
 */
const SnapshotItemSchema = z.strictObject({
  suite: z.enum(SUITES),
  item_id: z.string(),
  item_hash: z.string(),
  cluster: z.string(),
  scheme: z.enum(["critic", "engine"]),
  n_trials: z.number().int().min(0),
  n_counted: z.number().int().min(0),
  verdict_counts: z.record(
    z.string().refine((k) => VERDICT_LABELS.includes(k), { message: `a verdict label is one of ${VERDICT_LABELS.join(", ")}` }),
    z.number().int().min(0),
  ),
  modal_verdict: z
    .string()
    .refine((v) => COUNTED_VERDICTS.includes(v), { message: `a counted verdict is one of ${COUNTED_VERDICTS.join(", ")}` })
    .nullable(),
  unanimous: z.boolean().nullable(),
  blocker_key_counts: counts,
  values: z.record(z.string(), z.number().nullable()),
  /**
   * The item's counts behind each ratio metric it enters (`num` of `den`, summed over the pooled
   * runs), for paired ratio deltas; absent in a baseline published before they were recorded.
   */
  ratios: z.record(z.string(), z.strictObject({ num: z.number().int().min(0), den: z.number().int().min(0) })).default({}),
});
export type SnapshotItem = z.output<typeof SnapshotItemSchema>;

/** One run pooled into a snapshot. */
const SnapshotRunSchema = z.strictObject({
  run_id: z.string().nullable(),
  config_hash: z.string().nullable(),
  seed: z.number().nullable(),
  started_at: z.string().nullable(),
  git_sha: z.string().nullable(),
});

/**
 * A metric across the pooled runs: each run's own value (and its events over units, for rates),
 * with their mean and sample SD (null below two runs). The in-control reference of `trend`.
 */
const BetweenRunsSchema = z.strictObject({
  values: z.array(z.number().nullable()),
  numerators: z.array(z.number().int().min(0).nullable()),
  denominators: z.array(z.number().int().min(0).nullable()),
  n: z.number().int().min(0),
  mean: z.number().nullable(),
  sd: z.number().nullable(),
});
export type BetweenRuns = z.output<typeof BetweenRunsSchema>;

/** 3: blocker keys are counted over the counted trials, as the verdicts are (2 counted them over every trial that did not error). */
export const SNAPSHOT_SCHEMA_VERSION = 3;

/**
 * A run, or several runs of one configuration pooled, reduced to what diffs, gates, comparisons
 * and trends need. A published baseline (`baselines/NAME.json`) is exactly this, written by
 * `fieldtest baseline publish`; a candidate run directory is reduced to the same shape (one run)
 * before it is compared. Schema 2 pooled runs (`runs`, `between_runs`, item clusters, the loop
 * settings); an older file is refused with the command that re-publishes it.
 */
export const SnapshotSchema = z.strictObject({
  // First, so that a file of another kind (a run's manifest.json, a summary) is named as such, not as an old baseline.
  kind: z
    .unknown()
    .superRefine((kind, ctx) => {
      if (kind !== "fieldtest-snapshot")
        ctx.addIssue({
          code: "custom",
          message: `not a baseline (a file written by \`fieldtest baseline publish\`, kind "fieldtest-snapshot"; this one has ${kind === undefined ? "no kind" : `kind ${JSON.stringify(kind)}`}): give a baseline file, or a run folder where a run may go`,
        });
    })
    .transform(() => "fieldtest-snapshot" as const),
  schema_version: z.literal(SNAPSHOT_SCHEMA_VERSION, {
    error: (issue) =>
      typeof issue.input === "number" && issue.input > SNAPSHOT_SCHEMA_VERSION
        ? `this baseline was written by a newer fieldtest (snapshot schema ${issue.input}; this one reads ${SNAPSHOT_SCHEMA_VERSION}): update fieldtest to read it`
        : typeof issue.input === "number"
          ? `this baseline was written by an older fieldtest (an older snapshot schema); re-publish it from its runs with \`fieldtest baseline publish\` (for baselines/sim-default.json: scripts/publish-baseline.sh)`
          : `expected the snapshot schema number ${SNAPSHOT_SCHEMA_VERSION}, got ${JSON.stringify(issue.input)}`,
  }),
  name: z.string(),
  /** The runs pooled here, in the order given (one for a run directory). */
  runs: z.array(SnapshotRunSchema).min(1),
  corpus_hash: z.string().nullable(),
  gate_versions: z.record(z.string(), z.string()),
  /** Whether every pooled run's gate canaries passed; null when a run recorded none. */
  canary_passed: z.boolean().nullable(),
  decision_context: z.record(z.string(), RoleContextSchema.nullable()),
  /**
   * Per role, every model name its answers reported (sorted; null reports left out): what the
   * provider said it served, kept beside the decision context and never in it (docs/design.md §7). A
   * requested alias that a provider moved to a new snapshot shows here, not in the request.
   * Absent in a baseline published before it was recorded: then there is nothing to compare.
   */
  reported_models: z.record(z.string(), z.array(z.string())).default({}),
  /** The external engine the runs field-tested (`run --engine`); null for fieldtest's own engine (and in a baseline published before it was recorded). */
  engine: z.strictObject({ name: z.string(), version: z.string().nullable(), manifest_sha256: z.string() }).nullable().default(null),
  /** Loop settings that decide corpus verdicts (`gates-first` ... and the round cap). */
  loop: z.strictObject({ mode: z.string().nullable(), max_rounds: z.number().int().nullable() }),
  /** Trials per item and run, as configured. */
  trials_per_run: z.number().int().min(0).nullable(),
  /** The fewest pooled trials any item got. */
  trials_per_item: z.number().int().min(0).nullable(),
  error_trials: z.number().int().min(0),
  total_trials: z.number().int().min(0),
  /** Every summary metric over the pooled trials. */
  metrics: z.record(z.string(), MetricSchema),
  between_runs: z.record(z.string(), BetweenRunsSchema),
  // One entry per item: a second would be paired against the candidate twice.
  items: z.array(SnapshotItemSchema).superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const key = itemKey(item);
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: [i, "item_id"], message: `${key} is listed twice` });
      seen.add(key);
    });
  }),
});
export type Snapshot = z.output<typeof SnapshotSchema>;

export function itemKey(i: { suite: string; item_id: string }): string {
  return `${i.suite}/${i.item_id}`;
}

/** A snapshot's run identity for people: its one run id, or its name and the number of runs pooled. */
export function describeSnapshot(s: Snapshot): string {
  return s.runs.length === 1 ? (s.runs[0]!.run_id ?? s.name) : `${s.name} (${s.runs.length} runs pooled)`;
}
