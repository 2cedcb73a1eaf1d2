import { ROLES, type CallRecord, type TrialRecord } from "../formats/records.ts";
import { itemMeanMetric, ratioMetric } from "./estimate.ts";
import { itemTrialShare, type ItemTrials } from "./items.ts";
import { criticWasUnavailable, plannerWasUnavailable, type VerdictScheme } from "./trial-facts.ts";
import type { EstimateContext, MetricMap } from "./types.ts";

/**
 * An unavailable role is a measured model behaviour only when the provider answered: an error
 * trial (provider_error) measured nothing and counts in trial_error_rate alone (DESIGN.md §6).
 */
const answered = (t: TrialRecord) => t.status !== "error";

/** Critic audits that returned a findings array: well-formed findings kept, and malformed ones dropped. */
function auditedFindings(trial: TrialRecord): { kept: number; malformed: number } {
  let kept = 0;
  let malformed = 0;
  for (const r of trial.rounds) {
    if (r.critic === null) continue;
    kept += r.critic.outcome === "ok" ? r.critic.findings.length : 0;
    malformed += r.critic.malformed_findings;
  }
  return { kept, malformed };
}

/**
 * Outages per trial, with the items they apply to and the trials they are counted over (those
 * whose provider answered, or all): one table serves the summary and the baseline's per-item values.
 */
export const AVAILABILITY_RATES: Readonly<Record<string, { scheme: VerdictScheme | "any"; event: (t: TrialRecord) => boolean; over: (t: TrialRecord) => boolean }>> = {
  critic_unavailable_rate: { scheme: "critic", event: (t) => t.critic_verdict === "unavailable", over: answered },
  "critic_unavailable_rate.corpus": { scheme: "engine", event: criticWasUnavailable, over: answered },
  planner_unavailable_rate: { scheme: "engine", event: plannerWasUnavailable, over: answered },
  trial_error_rate: { scheme: "any", event: (t) => t.status === "error", over: () => true },
};

/** Whether an availability rate applies to an item of this scheme. */
export function appliesTo(rate: { scheme: VerdictScheme | "any" }, scheme: VerdictScheme): boolean {
  return rate.scheme === "any" || rate.scheme === scheme;
}

/**
 * Outcomes that are never folded into verdicts, each with its own rate: critic_unavailable
 * (boundary: critic_verdict `unavailable`; corpus: any round's audit unavailable) and
 * planner_unavailable (corpus: the planner gave no valid plan after its retries, so the goal
 * escalated without a verdict on any plan of its own), both over the trials whose provider
 * answered; infrastructure errors (status `error`: a provider that never answered, a dead
 * endpoint) over all trials; invalid model output (call records with outcome `invalid_output`
 * over all call records, overall and per role), and the part of it that its provider ended early
 * (`ended_early_rate`: error_class `incomplete`, the output limit or context window most often);
 * and malformed findings (items of a critic's
 * findings array that were dropped, DESIGN.md §5, over every item it returned).
 */
export function availabilityMetrics(boundary: readonly ItemTrials[], engine: readonly ItemTrials[], ctx: EstimateContext): MetricMap {
  const all = [...boundary, ...engine];
  const callShare = (counts: (c: CallRecord) => boolean, role?: string) =>
    all.map((item) => {
      const calls = item.trials.flatMap((t) => t.calls).filter((c) => role === undefined || c.role === role);
      return { num: calls.filter(counts).length, den: calls.length, trials: item.trials.length, cluster: item.cluster };
    });
  const invalidOutput = (role?: string) => callShare((c) => c.outcome === "invalid_output", role);
  // The part of invalid output that the provider cut short: an output limit too low for the model, most often.
  const endedEarly = (role?: string) => callShare((c) => c.error_class === "incomplete", role);
  const malformed = all.map((item) => {
    const counts = item.trials.map(auditedFindings);
    const bad = counts.reduce((s, c) => s + c.malformed, 0);
    return { num: bad, den: bad + counts.reduce((s, c) => s + c.kept, 0), trials: item.trials.length, cluster: item.cluster };
  });
  const metrics: MetricMap = {};
  for (const [name, rate] of Object.entries(AVAILABILITY_RATES)) {
    const values = all.filter((item) => appliesTo(rate, item.scheme)).map((item) => itemTrialShare(item, rate.event, rate.over));
    metrics[name] = itemMeanMetric(
      values.filter((v) => v !== null),
      ctx,
    );
  }
  metrics.invalid_output_rate = ratioMetric(invalidOutput(), ctx, "invalid_output_rate");
  metrics.malformed_finding_rate = ratioMetric(malformed, ctx, "malformed_finding_rate");
  for (const role of ROLES) metrics[`invalid_output_rate.${role}`] = ratioMetric(invalidOutput(role), ctx, `invalid_output_rate.${role}`);
  metrics.ended_early_rate = ratioMetric(endedEarly(), ctx, "ended_early_rate");
  for (const role of ROLES) metrics[`ended_early_rate.${role}`] = ratioMetric(endedEarly(role), ctx, `ended_early_rate.${role}`);
  return metrics;
}
