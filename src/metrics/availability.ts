import { ROLES, type TrialRecord } from "../formats/records.ts";
import { itemMeanMetric, ratioMetric, type ItemValue } from "./estimate.ts";
import type { ItemTrials } from "./items.ts";
import { criticWasUnavailable, plannerWasUnavailable } from "./trial-facts.ts";
import type { EstimateContext, MetricMap } from "./types.ts";

/** Share of all the item's trials (counted or not) for which `hit` holds; null with no trial. */
export function itemTrialShare(item: ItemTrials, hit: (t: TrialRecord) => boolean): ItemValue | null {
  return item.trials.length === 0 ? null : { value: item.trials.filter(hit).length / item.trials.length, trials: item.trials.length };
}

function perTrialRate(items: readonly ItemTrials[], hit: (t: TrialRecord) => boolean, ctx: EstimateContext) {
  return itemMeanMetric(
    items.map((item) => itemTrialShare(item, hit)).filter((v) => v !== null),
    ctx,
  );
}

/**
 * Outcomes that are never folded into verdicts, each with its own rate: critic_unavailable
 * (boundary: critic_verdict `unavailable`; corpus: any round's audit unavailable) and
 * planner_unavailable (corpus: the planner gave no valid plan after its retries, so the goal
 * escalated without a verdict on any plan of its own), both over the trials whose provider
 * answered; infrastructure errors (status `error`: a provider that never answered, a dead
 * endpoint) over all trials; and invalid model output (call records with outcome
 * `invalid_output` over all call records, overall and per role).
 */
export function availabilityMetrics(boundary: readonly ItemTrials[], engine: readonly ItemTrials[], ctx: EstimateContext): MetricMap {
  const all = [...boundary, ...engine];
  // An unavailable role is a measured model behaviour only when the provider answered: an error
  // trial (provider_error) measured nothing and counts in trial_error_rate alone (DESIGN.md §6).
  const answered = (items: readonly ItemTrials[]) => items.map((item) => ({ ...item, trials: item.trials.filter((t) => t.status !== "error") }));
  const invalidOutput = (role?: string) =>
    all.map((item) => {
      const calls = item.trials.flatMap((t) => t.calls).filter((c) => role === undefined || c.role === role);
      return { num: calls.filter((c) => c.outcome === "invalid_output").length, den: calls.length, trials: item.trials.length };
    });
  const metrics: MetricMap = {
    critic_unavailable_rate: perTrialRate(answered(boundary), (t) => t.critic_verdict === "unavailable", ctx),
    "critic_unavailable_rate.corpus": perTrialRate(answered(engine), criticWasUnavailable, ctx),
    planner_unavailable_rate: perTrialRate(answered(engine), plannerWasUnavailable, ctx),
    trial_error_rate: perTrialRate(all, (t) => t.status === "error", ctx),
    invalid_output_rate: ratioMetric(invalidOutput(), ctx, "invalid_output_rate"),
  };
  for (const role of ROLES) metrics[`invalid_output_rate.${role}`] = ratioMetric(invalidOutput(role), ctx, `invalid_output_rate.${role}`);
  return metrics;
}
