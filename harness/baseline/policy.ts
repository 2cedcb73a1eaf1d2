import { z } from "zod";
import type { Snapshot } from "./schema.ts";

const metricName = z.string().regex(/^[a-z0-9_.]+$/, "a metric name from summary.json (e.g. underclaim_approvals)");

/** An absolute floor, judged on the candidate alone (methodology-notes §12 step 2). */
export const FloorSchema = z.strictObject({
  metric: metricName,
  /** The largest acceptable value (lower is better). */
  max: z.number(),
  /** Judge the point estimate, or the upper interval bound (the stricter safety claim). */
  on: z.enum(["value", "ci_high"]).default("value"),
});

/** A per-metric non-inferiority margin against the baseline (methodology-notes §12 steps 3–4). */
export const MarginSchema = z.strictObject({
  metric: metricName,
  /** The smallest regression that matters, in the metric's own units. */
  margin: z.number().positive(),
  direction: z.enum(["lower_is_better", "higher_is_better"]).default("lower_is_better"),
});

/**
 * The pre-registered release policy (`gate.yaml`). Written before the run it judges; changing it
 * after seeing a result defeats its purpose.
 */
export const GatePolicySchema = z.strictObject({
  version: z.literal(1),
  /** One-sided level of each non-inferiority test (intersection–union: no correction needed). */
  alpha: z.number().gt(0).lt(0.5).default(0.05),
  /** The pre-registered N: fewer trials per item is inconclusive, never a pass. */
  min_trials_per_item: z.number().int().min(1).default(3),
  /** The canary must have run and passed; otherwise the gates themselves are suspect (exit 3). */
  require_canary: z.boolean().default(true),
  /** Share of trials with status `error` above which the run is invalid (exit 3), not passing. */
  max_error_rate: z.number().min(0).max(1).default(0.05),
  /** Deltas that no recorded cause or noise explains (`fieldtest diff`). */
  max_unexplained_deltas: z.number().int().min(0).default(0),
  floors: z.array(FloorSchema).default([]),
  non_inferiority: z.array(MarginSchema).default([]),
});
export type GatePolicy = z.output<typeof GatePolicySchema>;
export type Floor = z.output<typeof FloorSchema>;
export type Margin = z.output<typeof MarginSchema>;

/**
 * A policy that names something the runs cannot give: a floor on a metric the summary does not
 * have, or a margin on a metric without per-item values to pair (ratio metrics). Such a policy
 * could never be judged, so it is bad input rather than an endlessly inconclusive gate.
 */
export function policyProblem(policy: GatePolicy, candidate: Snapshot, baseline: Snapshot): { path: string; message: string } | null {
  const floor = policy.floors.findIndex((f) => !(f.metric in candidate.metrics));
  if (floor >= 0) return { path: `floors[${floor}].metric`, message: `"${policy.floors[floor]!.metric}" is not a summary metric` };
  const paired = new Set(baseline.items.flatMap((i) => Object.keys(i.values)));
  const margin = policy.non_inferiority.findIndex((m) => !paired.has(m.metric));
  if (margin < 0) return null;
  return {
    path: `non_inferiority[${margin}].metric`,
    message: `"${policy.non_inferiority[margin]!.metric}" has no per-item values to pair (have: ${[...paired].sort().join(", ")}); gate it with a floor`,
  };
}
