import type { Estimate } from "../config.ts";
import type { Role, Spend, SpendLine } from "../../src/formats/records.ts";
import { dearerOf, NO_SPEND, type DearestSends } from "./journal.ts";
import type { RunConfig } from "../../src/formats/run-config.ts";

/** USD for one call of `model` with the given tokens; null when the price table does not know it. */
export type PriceOf = (provider: string, model: string, inputTokens: number, outputTokens: number) => number | null;

interface RoleEstimate {
  role: Role;
  provider: string;
  model: string;
  calls: number;
  /** Every round and every structured-output retry used: the most the plan can call. */
  maxCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** null: the price table has no price for this model ("unknown" is never 0). */
  costUsd: number | null;
  /** What one call is assumed to cost (the assumed tokens at the table's price); null when unpriced. */
  costPerCallUsd: number | null;
  /** How the numbers were derived, one line each, for `--dry-run`. */
  derivation: string[];
}

export interface SweepEstimate {
  roles: RoleEstimate[];
  calls: number;
  costUsd: number | null;
}

/**
 * Planned calls, tokens and cost per role. An engine trial runs `roundsPerGoal` rounds on average,
 * each one planner call and (unless gates-only) one critic call; a boundary trial is one critic call.
 */
export function estimateSweep(
  counts: { corpusTrials: number; boundaryTrials: number },
  config: Pick<RunConfig, "mode" | "maxRounds" | "client">,
  assumptions: Estimate,
  price: PriceOf,
): SweepEstimate {
  const rounds = Math.min(assumptions.roundsPerGoal, config.maxRounds);
  const attempts = config.client.maxOutputAttempts ?? 1;
  const criticPerRound = config.mode === "gates-only" ? 0 : 1;
  const perRole = {
    planner: {
      calls: counts.corpusTrials * rounds,
      max: counts.corpusTrials * config.maxRounds * attempts,
      why: `${counts.corpusTrials} engine trials × ${rounds} rounds`,
    },
    critic: {
      calls: counts.corpusTrials * rounds * criticPerRound + counts.boundaryTrials,
      max: (counts.corpusTrials * config.maxRounds * criticPerRound + counts.boundaryTrials) * attempts,
      why: `${counts.corpusTrials} engine trials × ${rounds} rounds × ${criticPerRound} critic call + ${counts.boundaryTrials} critic-only trials × 1`,
    },
  };
  const roles = (["planner", "critic"] as const).map((role): RoleEstimate => {
    const { provider, model } = config.client[role];
    const tokens = assumptions[role];
    const calls = Math.round(perRole[role].calls);
    const perCall = price(provider, model, tokens.inputTokens, tokens.outputTokens);
    const costUsd = calls === 0 ? 0 : perCall === null ? null : perCall * calls;
    return {
      role,
      provider,
      model,
      calls,
      maxCalls: perRole[role].max,
      inputTokens: calls * tokens.inputTokens,
      outputTokens: calls * tokens.outputTokens,
      costUsd,
      costPerCallUsd: perCall,
      derivation: [
        `calls = ${perRole[role].why} = ${calls} (at most ${perRole[role].max}: ${config.maxRounds} rounds × ${attempts} output attempts)`,
        `tokens = ${calls} calls × (${tokens.inputTokens} in + ${tokens.outputTokens} out) assumed per call (config: estimate.${role})`,
        perCall === null
          ? `cost = unknown: no price for ${provider}/${model} in the price table`
          : `cost = ${calls} calls × $${perCall.toFixed(6)} per call (${provider}/${model} price table) = $${(costUsd ?? 0).toFixed(4)}`,
      ],
    };
  });
  const costs = roles.map((r) => r.costUsd);
  return {
    roles,
    calls: roles.reduce((n, r) => n + r.calls, 0),
    costUsd: costs.some((c) => c === null) ? null : costs.reduce<number>((a, c) => a + (c ?? 0), 0),
  };
}

/** What a run may spend, in all sessions together (what earlier ones spent comes from the journal). */
interface Limits {
  budgetUsd: number | null;
  maxCalls: number | null;
}

/**
 * Why a sweep may not start, or null when the estimate fits the limits. `spent` is what earlier
 * sessions of the run already spent (from its journal), so a resume cannot spend the ceiling again.
 */
export function refuseByEstimate(estimate: SweepEstimate, limits: Limits, spent: Spend = NO_SPEND): string | null {
  const already = (what: string) => (spent.calls > 0 ? ` (${what} already spent + the estimate for the trials left)` : "");
  if (limits.maxCalls !== null && spent.calls + estimate.calls > limits.maxCalls) {
    return `estimated ${spent.calls + estimate.calls} LLM calls${already(`${spent.calls} calls`)} exceed --max-calls ${limits.maxCalls}`;
  }
  if (limits.budgetUsd !== null) {
    if (estimate.costUsd === null) {
      const unknown = estimate.roles.filter((r) => r.costUsd === null).map((r) => `${r.provider}/${r.model}`);
      return `--budget-usd needs a price, and the price table has none for ${unknown.join(", ")} (use --max-calls instead)`;
    }
    // Earlier calls of unknown cost (in flight at a crash, or answered without usage) count at the
    // estimate's dearest call, never as free (the run's guard then holds them at the dearest send
    // the journal knows, or this same estimate before any returned).
    const held = spent.unknown_cost_calls * Math.max(0, ...estimate.roles.map((r) => r.costPerCallUsd ?? 0));
    const total = spent.cost_usd + held + estimate.costUsd;
    if (total > limits.budgetUsd) {
      return `estimated cost $${total.toFixed(4)}${already(`${formatSpend(spent)}`)} exceeds --budget-usd ${limits.budgetUsd}`;
    }
  }
  return null;
}

/** `$0.1234`, or `at least $0.1234 (2 calls of unknown cost)` when the journal cannot give the whole cost. */
export function formatSpend(spend: Pick<Spend, "cost_usd" | "unknown_cost_calls">): string {
  const usd = `$${spend.cost_usd.toFixed(4)}`;
  return spend.unknown_cost_calls > 0 ? `at least ${usd} (${spend.unknown_cost_calls} call(s) of unknown cost)` : usd;
}

/** Why a returned send's cost is unknown, in words. */
function unknownCostWhy(line: Extract<SpendLine, { event: "returned" }>): string {
  if (line.outcome === "ok") return line.usage === null ? "the provider reported no usage" : "the model has no price in the price table";
  return `it failed (${line.error_class ?? "error"}) after the request was sent, so the provider may have billed it`;
}

/**
 * The run's spending ceiling, consulted before every send. It counts from what the run's journal
 * says earlier sessions spent. Once it refuses a send it stays tripped; the trial that asked is
 * remembered so its (partial) outcome is never recorded.
 *
 * A USD cost is known only when a send returns, so the guard reserves for the sends still out: a
 * send is admitted only while the known spend, plus every send in flight and this one at the
 * dearest send of its role seen so far (before any returned: the estimate's cost per call), stays
 * within the budget. So the budget holds, save for the sends a crash leaves in flight, as long as
 * no send costs more than the dearest before it. A send of unknown cost trips a USD limit at once:
 * spend that cannot be known cannot be proven under the limit (fail closed).
 */
export class BudgetGuard {
  calls: number;
  spentUsd: number;
  tripped: string | null = null;
  /** Whether it tripped on a send of unknown cost (a higher limit would not have let the run go on). */
  stoppedByUnknownCost = false;
  private readonly cut = new Set<string>();
  /** Admitted sends not yet returned, by role. */
  private readonly inFlight: Record<Role, number> = { planner: 0, critic: 0 };
  private dearest: DearestSends;
  /**
   * What earlier sessions' calls of unknown cost may have cost (sends a crash left in flight, which
   * the provider may have answered and billed, or answers without usage): each is held at the
   * dearest send of any role, so a resume never spends the budget as if they were free.
   */
  private readonly reservedUsd: number;
  private readonly reservedCalls: number;

  constructor(
    private readonly limits: Limits,
    /** What earlier sessions of this run spent (a resume keeps counting). */
    already: Pick<Spend, "calls" | "cost_usd" | "unknown_cost_calls"> = NO_SPEND,
    /** What a send of each role costs: the dearest the journal holds, else the estimate's per call. */
    private readonly sendCost: { dearest?: DearestSends; estimate?: Partial<Record<Role, number | null>> } = {},
  ) {
    this.calls = already.calls;
    this.spentUsd = already.cost_usd;
    this.dearest = { ...sendCost.dearest };
    this.reservedCalls = already.unknown_cost_calls;
    this.reservedUsd = already.unknown_cost_calls * Math.max(this.costOfSend("planner"), this.costOfSend("critic"));
  }

  /** Refuses every further call from now on (cancellation). */
  close(reason: string): void {
    this.tripped ??= reason;
  }

  private costOfSend(role: Role): number {
    return this.dearest[role] ?? this.sendCost.estimate?.[role] ?? 0;
  }

  /** Why the USD budget leaves no room for one more send of `role`, or null when it does. */
  private usdRefusal(role: Role, budget: number): string | null {
    const reserved = this.reservedCalls > 0 ? `, $${this.reservedUsd.toFixed(4)} held for ${this.reservedCalls} earlier call(s) of unknown cost` : "";
    const spent = `$${this.spentUsd.toFixed(4)} spent${reserved}`;
    if (this.spentUsd + this.reservedUsd >= budget) return `--budget-usd ${budget} reached (${spent})`;
    const out = this.inFlight.planner + this.inFlight.critic;
    const committed =
      this.spentUsd +
      this.reservedUsd +
      this.inFlight.planner * this.costOfSend("planner") +
      this.inFlight.critic * this.costOfSend("critic") +
      this.costOfSend(role);
    if (committed <= budget) return null;
    return `--budget-usd ${budget} reached (${spent}${out > 0 ? `, ${out} send(s) in flight` : ""}; another ${role} send may cost $${this.costOfSend(role).toFixed(4)}, the dearest so far)`;
  }

  /** Admits one send of `role` for the trial `trialKey`, or refuses it and remembers that trial as cut. */
  beforeCall(role: Role, trialKey: string | null = null): "ok" | "budget_exceeded" {
    if (this.tripped === null) {
      if (this.limits.maxCalls !== null && this.calls >= this.limits.maxCalls) this.tripped = `--max-calls ${this.limits.maxCalls} reached`;
      else if (this.limits.budgetUsd !== null) this.tripped = this.usdRefusal(role, this.limits.budgetUsd);
    }
    if (this.tripped !== null) {
      if (trialKey !== null) this.cut.add(trialKey);
      return "budget_exceeded";
    }
    this.calls++;
    this.inFlight[role]++;
    return "ok";
  }

  /** A journaled send event: a return adds its cost, or trips a USD limit when its cost is unknown. */
  onSpend(line: SpendLine): void {
    if (line.event !== "returned") return;
    if (this.inFlight[line.role] > 0) this.inFlight[line.role]--;
    if (line.cost_usd !== null) {
      this.spentUsd += line.cost_usd;
      this.dearest = dearerOf(this.dearest, line);
    } else if (this.limits.budgetUsd !== null && this.tripped === null) {
      this.tripped = `--budget-usd ${this.limits.budgetUsd}: a ${line.role} call's cost is unknown (${unknownCostWhy(line)}), so the spend cannot be proven under the limit`;
      this.stoppedByUnknownCost = true;
    }
  }

  /** Whether a call of this trial was refused: its outcome is partial and must not be recorded. */
  wasCut(key: string): boolean {
    return this.cut.has(key);
  }
}
