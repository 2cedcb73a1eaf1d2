import { ESCALATION_REASONS, type EscalationReason } from "../formats/enums.ts";
import type { CallRecord, CriticVerdict, EngineOutcome, RoundRecord } from "../formats/records.ts";

/**
 * The engine's result from its rounds and calls. Approved exactly when no escalation reason
 * applied; the trial's reason is the first in the order of docs/design.md §6. A role whose provider
 * never answered (`providerError`, what went wrong) measured nothing about the model: the engine
 * still fails closed (verdict escalate, the unavailable role as its reason), but the trial's
 * status is `error` (docs/design.md §6, model failure versus infrastructure failure).
 */
export function engineOutcome(
  rounds: RoundRecord[],
  calls: CallRecord[],
  reasons: readonly EscalationReason[],
  criticVerdict: CriticVerdict | null = null,
  providerError: string | null = null,
): EngineOutcome {
  const ordered = ESCALATION_REASONS.filter((r) => reasons.includes(r));
  const approved = ordered.length === 0;
  return {
    status: providerError !== null ? "error" : approved ? "approved" : "escalated",
    escalation_reason: ordered[0] ?? null,
    escalation_reasons: ordered,
    error: providerError,
    rounds,
    critic_verdict: criticVerdict,
    verdict: approved ? "approve" : "escalate",
    calls,
  };
}
