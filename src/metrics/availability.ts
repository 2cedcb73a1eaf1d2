import type { CallRecord, Role, TrialRecord } from "../formats/records.ts";
import type { RatioItem } from "./estimate.ts";
import type { ItemTrials } from "./items.ts";

/**
 * An unavailable role is a measured model behaviour only when the provider answered: an error
 * trial (provider_error) measured nothing and counts in trial_error_rate alone (docs/design.md §6).
 */
export const answered = (t: TrialRecord) => t.status !== "error";

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
export const approvedGateBlocked = (t: TrialRecord): boolean => t.status === "approved" && (t.rounds.at(-1)?.gate_findings.length ?? 0) > 0;

/** A call record whose answer failed structured-output validation. */
export const invalidOutput = (c: CallRecord) => c.outcome === "invalid_output";
/** The part of invalid output that the provider cut short: an output limit too low for the model, most often. */
export const endedEarly = (c: CallRecord) => c.error_class === "incomplete";

/**
 * One item's call records (of one role, or all) that `counts` holds for, over all of them,
 * clustered by the item's group: the counts behind invalid_output_rate and ended_early_rate.
 */
export function callShare(item: ItemTrials, counts: (c: CallRecord) => boolean, role?: Role): RatioItem {
  const calls = item.trials.flatMap((t) => t.calls).filter((c) => role === undefined || c.role === role);
  return { num: calls.filter(counts).length, den: calls.length, trials: item.trials.length, cluster: item.cluster };
}

/** One item's malformed findings over every item its critics' findings arrays held (kept and malformed): malformed_finding_rate's counts. */
export function malformedFindings(item: ItemTrials): RatioItem {
  const findings = item.trials.map(auditedFindings);
  const bad = findings.reduce((s, c) => s + c.malformed, 0);
  return { num: bad, den: bad + findings.reduce((s, c) => s + c.kept, 0), trials: item.trials.length, cluster: item.cluster };
}
