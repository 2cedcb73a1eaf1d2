import { z } from "zod";
import { metricDef } from "../../src/metrics/catalogue.ts";
import type { Snapshot } from "../../src/formats/snapshot.ts";

const metricName = z.string().regex(/^[a-z0-9_.]+$/, "a metric name from summary.json (e.g. underclaim_approvals)");

/**
 * An absolute floor, judged on the candidate alone (methodology-notes §12 step 2): a largest
 * acceptable value (`max`, lower is better) or a smallest one (`min`), one of the two.
 */
const FloorSchema = z
  .strictObject({
    metric: metricName,
    max: z.number().optional(),
    min: z.number().optional(),
    /**
     * Judge the point estimate, the bound of the metric's own interval on the floor's side
     * (`ci_high` for max, `ci_low` for min), or the one-sided exact (Clopper–Pearson) bound at
     * 1 − α of its events over its units (`exact_upper` for max, `exact_lower` for min; rates
     * only): the claim a safety floor makes, "with 95% confidence the rate is at most max".
     */
    on: z.enum(["value", "ci_high", "ci_low", "exact_upper", "exact_lower"]).default("value"),
  })
  .refine((f) => (f.max === undefined) !== (f.min === undefined), { message: "a floor has either max or min", path: ["max"] })
  .refine((f) => (f.max === undefined ? !["ci_high", "exact_upper"].includes(f.on) : !["ci_low", "exact_lower"].includes(f.on)), {
    message: "a max floor is judged on value, ci_high or exact_upper; a min floor on value, ci_low or exact_lower",
    path: ["on"],
  });

/**
 * A per-metric non-inferiority margin against the baseline (methodology-notes §12 steps 3–4). Its
 * direction is the metric's own (src/metrics/catalogue.ts): a policy may state it, never contradict
 * it, and must state it only for a metric with no better direction.
 */
const MarginSchema = z
  .strictObject({
    metric: metricName,
    /** The smallest regression that matters, in the metric's own units. */
    margin: z.number().positive(),
    direction: z.enum(["lower_is_better", "higher_is_better"]).optional(),
  })
  .transform((m, ctx) => {
    const def = metricDef(m.metric);
    const refuse = (path: string, message: string) => (ctx.addIssue({ code: "custom", path: [path], message }), z.NEVER);
    if (def === undefined) return refuse("metric", `"${m.metric}" is not a metric fieldtest computes (src/metrics/catalogue.ts)`);
    const where = `src/metrics/catalogue.ts, METHODOLOGY.md §${def.methodology}`;
    if (def.direction === "neutral") {
      return m.direction === undefined
        ? refuse("direction", `"${m.metric}" has no better direction (${where}): say which way its margin guards`)
        : { ...m, direction: m.direction };
    }
    if (m.direction !== undefined && m.direction !== def.direction)
      return refuse("direction", `"${m.metric}" is ${def.direction} (${where}), not ${m.direction}`);
    return { ...m, direction: def.direction };
  });

/**
 * The pre-registered release policy (`gate.yaml`). Written before the run it judges; changing it
 * after seeing a result defeats its purpose.
 */
export const GatePolicySchema = z.strictObject({
  version: z.literal(1),
  /** What the policy is for (printed above the gate's verdict), e.g. that it is calibrated on the sim. */
  description: z.string().min(1).optional(),
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
  // A rate this run has no item of (a boundary metric of a corpus-only run) is unknown, judged inconclusive; it is still a rate.
  const exact = policy.floors.findIndex(
    (f) => f.on.startsWith("exact") && candidate.metrics[f.metric]!.n_items > 0 && candidate.metrics[f.metric]!.denominator === undefined,
  );
  if (exact >= 0)
    return { path: `floors[${exact}].on`, message: `"${policy.floors[exact]!.metric}" is not a rate with an event count; judge it on value or ci_high` };
  const paired = new Set(baseline.items.flatMap((i) => Object.keys(i.values)));
  const margin = policy.non_inferiority.findIndex((m) => !paired.has(m.metric));
  if (margin < 0) return null;
  return {
    path: `non_inferiority[${margin}].metric`,
    message: `"${policy.non_inferiority[margin]!.metric}" has no per-item values to pair (have: ${[...paired].sort().join(", ")}); gate it with a floor`,
  };
}
