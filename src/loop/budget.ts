import type { CallRecord, TransportAttempt } from "../formats/records.ts";
import type { SendGuard } from "../providers/types.ts";

/** Per-goal spending limits; an absent limit is no limit. */
export interface Budget {
  /** Transport attempts (every request sent, retries included). */
  calls?: number;
  /** Input plus output tokens. */
  tokens?: number;
  costUsd?: number;
}

interface Spend {
  calls: number;
  tokens: number;
  costUsd: number;
  /** Some call reported no usage: its tokens are never taken as zero. */
  tokensUnknown: boolean;
  /** Some call's price is unknown: its cost is never taken as zero. */
  costUnknown: boolean;
}

export function spendOf(calls: readonly CallRecord[]): Spend {
  return calls.reduce<Spend>(
    (s, c) => ({
      calls: s.calls + c.transport_attempts.length,
      tokens: s.tokens + (c.usage ? c.usage.input_tokens + c.usage.output_tokens : 0),
      tokensUnknown: s.tokensUnknown || c.usage === null,
      costUsd: s.costUsd + (c.cost_usd ?? 0),
      costUnknown: s.costUnknown || c.cost_usd === null,
    }),
    { calls: 0, tokens: 0, tokensUnknown: false, costUsd: 0, costUnknown: false },
  );
}

/**
 * The spend of finished calls plus the transport attempts of one still in progress. Those attempts
 * all failed (a success ends the exchange) and reported no usage. One refused with an HTTP status
 * (a 429, a 503) generated nothing: no tokens, no cost. One without a status (a timeout, a reset)
 * may have generated and been billed, so its tokens are unknown and so is its cost (as the finished call will say).
 */
function spendWith(calls: readonly CallRecord[], sending: readonly TransportAttempt[]): Spend {
  const spend = spendOf(calls);
  if (sending.length === 0) return spend;
  const mayHaveGenerated = sending.some((a) => a.http_status === null);
  return {
    ...spend,
    calls: spend.calls + sending.length,
    tokensUnknown: spend.tokensUnknown || mayHaveGenerated,
    costUnknown: spend.costUnknown || mayHaveGenerated,
  };
}

/**
 * The client-side guard of a per-goal budget: before every send, the goal's calls so far plus
 * what this request has made must leave room under the budget, so structured-output and transport
 * retries count like any other request.
 */
export function budgetGuard(goalCalls: readonly CallRecord[], budget: Budget): SendGuard {
  return ({ calls, sending }) => !budgetExhausted(spendWith([...goalCalls, ...calls], sending), budget);
}

/**
 * No further call may be made. A token or cost limit with an unknown amount counts as reached: a
 * call without usage, or an unpriced model, cannot prove it stayed under the limit (fail closed).
 */
export function budgetExhausted(spend: Spend, budget: Budget): boolean {
  if (budget.calls !== undefined && spend.calls >= budget.calls) return true;
  if (budget.tokens !== undefined && (spend.tokensUnknown || spend.tokens >= budget.tokens)) return true;
  return budget.costUsd !== undefined && (spend.costUnknown || spend.costUsd >= budget.costUsd);
}
