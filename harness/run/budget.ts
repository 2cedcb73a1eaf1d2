import type { Estimate } from "../config.ts";
import type { CallRecord, Role } from "../../src/formats/records.ts";
import type { RunConfig } from "./settings.ts";

/** USD for one call of `model` with the given tokens; null when the price table does not know it. */
export type PriceOf = (provider: string, model: string, inputTokens: number, outputTokens: number) => number | null;

export interface RoleEstimate {
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
    planner: { calls: counts.corpusTrials * rounds, max: counts.corpusTrials * config.maxRounds * attempts, why: `${counts.corpusTrials} engine trials × ${rounds} rounds` },
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

/** Why a sweep may not start, or null when the estimate fits the limits. */
export function refuseByEstimate(estimate: SweepEstimate, limits: { budgetUsd: number | null; maxCalls: number | null }): string | null {
  if (limits.maxCalls !== null && estimate.calls > limits.maxCalls) {
    return `estimated ${estimate.calls} LLM calls exceed --max-calls ${limits.maxCalls}`;
  }
  if (limits.budgetUsd !== null) {
    if (estimate.costUsd === null) {
      const unknown = estimate.roles.filter((r) => r.costUsd === null).map((r) => `${r.provider}/${r.model}`);
      return `--budget-usd needs a price, and the price table has none for ${unknown.join(", ")} (use --max-calls instead)`;
    }
    if (estimate.costUsd > limits.budgetUsd) {
      return `estimated cost $${estimate.costUsd.toFixed(4)} exceeds --budget-usd ${limits.budgetUsd}`;
    }
  }
  return null;
}

/**
 * The run's spending ceiling, consulted before every call. Once it refuses a call it stays
 * tripped; the trial that asked is remembered so its (partial) outcome is never recorded.
 */
export class BudgetGuard {
  calls = 0;
  spentUsd = 0;
  unknownCostCalls = 0;
  tripped: string | null = null;
  private readonly cut = new Set<string>();

  constructor(
    private readonly limits: { budgetUsd: number | null; maxCalls: number | null },
    /** Key of the trial making the current call (from async context). */
    private readonly currentTrial: () => string | undefined,
    /** Calls and spend already made by earlier sessions of this run (a resume keeps counting). */
    already: { calls: number; costUsd: number } = { calls: 0, costUsd: 0 },
  ) {
    this.calls = already.calls;
    this.spentUsd = already.costUsd;
  }

  /** Refuses every further call from now on (cancellation). */
  close(reason: string): void {
    this.tripped ??= reason;
  }

  beforeCall(): "ok" | "budget_exceeded" {
    if (this.tripped === null) {
      if (this.limits.maxCalls !== null && this.calls >= this.limits.maxCalls) this.tripped = `--max-calls ${this.limits.maxCalls} reached`;
      else if (this.limits.budgetUsd !== null && this.spentUsd >= this.limits.budgetUsd) this.tripped = `--budget-usd ${this.limits.budgetUsd} reached ($${this.spentUsd.toFixed(4)} spent)`;
    }
    if (this.tripped !== null) {
      const key = this.currentTrial();
      if (key !== undefined) this.cut.add(key);
      return "budget_exceeded";
    }
    this.calls++;
    return "ok";
  }

  onCall(record: Pick<CallRecord, "cost_usd">): void {
    if (record.cost_usd === null) this.unknownCostCalls++;
    else this.spentUsd += record.cost_usd;
  }

  /** Whether a call of this trial was refused: its outcome is partial and must not be recorded. */
  wasCut(key: string): boolean {
    return this.cut.has(key);
  }
}
