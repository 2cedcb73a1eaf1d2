import { ROLES, type CallRecord, type TrialRecord } from "../formats/records.ts";
import type { CountRatioItem } from "../stats/bootstrap.ts";
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
 * An engine approved while a critic call had no answer: an approval no critic gave. For an
 * external engine, what the proxy saw decides (a critic call it answered with an error that no
 * resend recovered; the trial's status is then `error`, the approval the engine's own word);
 * fieldtest's own engine escalates such a round by construction, which this measures rather than assumes.
 */
export const failOpenApproval = (t: TrialRecord): boolean =>
  t.engine !== undefined
    ? t.engine.reported.status === "approved" && t.engine.failed_calls.critic > 0
    : t.status === "approved" && t.rounds.some((r) => r.critic?.outcome === "critic_unavailable");

/** An approved plan that fieldtest's own gates block (its final round's counted gate findings). */
const approvedGateBlocked = (t: TrialRecord): boolean => t.status === "approved" && (t.rounds.at(-1)?.gate_findings.length ?? 0) > 0;

/**
 * Outages per trial (and the fail-closed checks on them), with the items they apply to and the
 * trials they are counted over (those whose provider answered, or all): one table serves the
 * summary and the baseline's per-item values.
 */
export const AVAILABILITY_RATES: Readonly<Record<string, { scheme: VerdictScheme | "any"; event: (t: TrialRecord) => boolean; over: (t: TrialRecord) => boolean }>> = {
  critic_unavailable_rate: { scheme: "critic", event: (t) => t.critic_verdict === "unavailable", over: answered },
  "critic_unavailable_rate.corpus": { scheme: "engine", event: criticWasUnavailable, over: answered },
  planner_unavailable_rate: { scheme: "engine", event: plannerWasUnavailable, over: answered },
  trial_error_rate: { scheme: "any", event: (t) => t.status === "error", over: () => true },
  // Over every trial: a fail-open approval is an error trial of an external engine.
  fail_open_approval: { scheme: "engine", event: failOpenApproval, over: () => true },
  engine_gate_disagreement: { scheme: "engine", event: approvedGateBlocked, over: (t) => t.status === "approved" },
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
  const metrics: MetricMap = {};
  for (const [name, rate] of Object.entries(AVAILABILITY_RATES)) {
    const values = all.filter((item) => appliesTo(rate, item.scheme)).map((item) => itemTrialShare(item, rate.event, rate.over));
    metrics[name] = itemMeanMetric(
      values.filter((v) => v !== null),
      ctx,
    );
  }
  const rows = all.map((item) => ({ parts: availabilityRatioParts(item), trials: item.trials.length, cluster: item.cluster }));
  for (const key of AVAILABILITY_RATIOS) metrics[key] = ratioMetric(rows.map((r) => ({ ...r.parts[key]!, trials: r.trials, cluster: r.cluster })), ctx, key);
  return metrics;
}

/** The ratio keys of availabilityRatioParts, in the summary's order. */
const AVAILABILITY_RATIOS = ["invalid_output_rate", "malformed_finding_rate", ...ROLES.map((r) => `invalid_output_rate.${r}`), "ended_early_rate", ...ROLES.map((r) => `ended_early_rate.${r}`)];

/**
 * One item's counts behind the availability ratios: invalid output and answers ended early over
 * its call records (overall and per role), malformed findings over every item its critics
 * returned. The summary sums them over items; compare and drift pair them item by item.
 */
export function availabilityRatioParts(item: ItemTrials): Record<string, CountRatioItem> {
  const calls = (role?: string) => item.trials.flatMap((t) => t.calls).filter((c) => role === undefined || c.role === role);
  const share = (counts: (c: CallRecord) => boolean, role?: string): CountRatioItem => ({ num: calls(role).filter(counts).length, den: calls(role).length });
  const invalidOutput = (c: CallRecord) => c.outcome === "invalid_output";
  // The part of invalid output that the provider cut short: an output limit too low for the model, most often.
  const endedEarly = (c: CallRecord) => c.error_class === "incomplete";
  const findings = item.trials.map(auditedFindings);
  const bad = findings.reduce((s, c) => s + c.malformed, 0);
  const parts: Record<string, CountRatioItem> = {
    invalid_output_rate: share(invalidOutput),
    malformed_finding_rate: { num: bad, den: bad + findings.reduce((s, c) => s + c.kept, 0) },
    ended_early_rate: share(endedEarly),
  };
  for (const role of ROLES) {
    parts[`invalid_output_rate.${role}`] = share(invalidOutput, role);
    parts[`ended_early_rate.${role}`] = share(endedEarly, role);
  }
  return parts;
}
