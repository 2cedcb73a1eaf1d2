import { z } from "zod";
import { SUITES } from "../../src/formats/records.ts";

/** `{value, ci_low, ci_high, n_items, n_trials}` (DESIGN.md §10); null when unknown. */
export const MetricSchema = z.object({
  value: z.number().nullable(),
  ci_low: z.number().nullable(),
  ci_high: z.number().nullable(),
  n_items: z.number().int().min(0),
  n_trials: z.number().int().min(0),
});
export type Metric = z.output<typeof MetricSchema>;

/** The request-side decision context of one role, as the run's manifest records it (DESIGN.md §7). */
export const RoleContextSchema = z.strictObject({
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
  /** The sim provider's behaviour for this role (its profile section, hashed); null for real providers. */
  sim_profile_sha256: z.string().nullable(),
});
export type RoleContext = z.output<typeof RoleContextSchema>;

const counts = z.record(z.string(), z.number().int().min(0));

/**
 * One item reduced over its trials (the metrics' ItemSummary plus the item's content hash and its
 * per-item metric values). `verdict_counts` cover every label (boundary: critic_verdict block |
 * pass | unavailable; corpus: status escalated | approved | error, or unavailable when a critic
 * audit was unavailable); `modal_verdict` and
 * `unanimous` are over the counted ones; `blocker_key_counts[k]` is the number of trials in which
 * blocker key k blocked in some round; `values[metric]` is the item's own value of each per-item
 * metric it belongs to, for paired deltas.
 */
export const SnapshotItemSchema = z.strictObject({
  suite: z.enum(SUITES),
  item_id: z.string(),
  item_hash: z.string(),
  scheme: z.enum(["critic", "engine"]),
  n_trials: z.number().int().min(0),
  n_counted: z.number().int().min(0),
  verdict_counts: counts,
  modal_verdict: z.string().nullable(),
  unanimous: z.boolean().nullable(),
  blocker_key_counts: counts,
  values: z.record(z.string(), z.number().nullable()),
});
export type SnapshotItem = z.output<typeof SnapshotItemSchema>;

/**
 * A run reduced to what diffs, gates, comparisons and trends need. A published baseline
 * (`baselines/NAME.json`) is exactly this, written by `fieldtest baseline publish`; a candidate
 * run directory is reduced to the same shape before it is compared.
 */
export const SnapshotSchema = z.strictObject({
  schema_version: z.literal(1),
  kind: z.literal("fieldtest-snapshot"),
  name: z.string(),
  run_id: z.string().nullable(),
  config_hash: z.string().nullable(),
  seed: z.number().nullable(),
  started_at: z.string().nullable(),
  corpus_hash: z.string().nullable(),
  gate_versions: z.record(z.string(), z.string()),
  canary_passed: z.boolean().nullable(),
  decision_context: z.record(z.string(), RoleContextSchema.nullable()),
  trials_per_item: z.number().int().min(0).nullable(),
  error_trials: z.number().int().min(0),
  total_trials: z.number().int().min(0),
  metrics: z.record(z.string(), MetricSchema),
  items: z.array(SnapshotItemSchema),
});
export type Snapshot = z.output<typeof SnapshotSchema>;

export function itemKey(i: { suite: string; item_id: string }): string {
  return `${i.suite}/${i.item_id}`;
}
