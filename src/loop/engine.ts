import { runCritic } from "../critic/critic.ts";
import type { EscalationReason } from "../formats/enums.ts";
import type { NormalizedFinding } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";
import type { CallRecord, CriticAudit, EngineOutcome, RoundRecord } from "../formats/records.ts";
import { runGates, type RunGatesOptions } from "../gates/index.ts";
import { applyRepairs } from "../gates/repairs.ts";
import type { CompiledPack } from "../packs/compile.ts";
import { declaredAttributes } from "../packs/planner.ts";
import { runPlanner, type PlannerResult } from "../planner/planner.ts";
import type { ModelClient } from "../providers/types.ts";
import { budgetExhausted, budgetGuard, spendOf, type Budget } from "./budget.ts";
import type { RoundTrace } from "./escalation.ts";
import { engineOutcome } from "./outcome.ts";
import { closeRound, type GatedPlan } from "./round.ts";

export const ENGINE_MODES = ["gates-first", "every-round", "gates-only"] as const;
export type EngineMode = (typeof ENGINE_MODES)[number];

export const DEFAULT_MAX_ROUNDS = 4;

export interface EngineOptions {
  /** When the critic runs: only on gate-clean plans (default), every round, or never. */
  mode?: EngineMode;
  /** Rounds per goal (default 4, so at most 3 revisions); a goal's max_revisions overrides it. */
  maxRounds?: number;
  budget?: Budget;
  /** Enabled domain packs: gated with every round, and their declared attributes are asked of the planner. */
  packs?: readonly CompiledPack[];
}

interface EngineDeps {
  client: ModelClient;
  itemId: string;
  trial: number;
}

/** The goal's own revision limit wins over the loop default; it counts revisions, not rounds. */
export function roundCap(goal: Goal, options: EngineOptions): number {
  const revisions = goal.constraints.max_revisions;
  return revisions !== undefined ? revisions + 1 : (options.maxRounds ?? DEFAULT_MAX_ROUNDS);
}

/** Gates (and packs), then at most one deterministic repair, whose re-run gates judge the round. */
function gate(goal: Goal, plan: Plan, gates: RunGatesOptions): GatedPlan {
  return applyRepairs(goal, plan, runGates(goal, plan, gates), gates);
}

/** A planner that did not deliver: refused for budget, or unavailable. */
const plannerFailure = (result: Extract<PlannerResult, { ok: false }>): EscalationReason =>
  result.outcome === "budget_exceeded" ? "budget_exceeded" : "planner_unavailable";

/** What went wrong when the planner's provider never answered (the trial is then an error); null otherwise. */
const providerError = (result: Extract<PlannerResult, { ok: false }>): string | null => (result.outcome === "provider_error" ? result.error : null);

/**
 * Run the engine on one goal (docs/design.md §6): the planner drafts, each round gates, repairs and
 * (by mode) critiques the plan, code decides, and the planner revises until the plan is approved
 * or an escalation reason applies. Model failures never throw: they are escalations (and a
 * provider that never answered makes the outcome an error). The per-goal budget is asked before
 * every request sent. The outcome carries every round and every call.
 */
export async function runEngine(goal: Goal, deps: EngineDeps, options: EngineOptions = {}): Promise<EngineOutcome> {
  const mode = options.mode ?? "gates-first";
  const cap = roundCap(goal, options);
  const budget = options.budget ?? {};
  const calls: CallRecord[] = [];
  const rounds: RoundRecord[] = [];
  const history: RoundTrace[] = [];
  const gates: RunGatesOptions = { packs: options.packs ?? [] };
  const attributes = declaredAttributes(gates.packs ?? []);
  const guard = budgetGuard(calls, budget);
  const callFor = (round: number) => ({ ...deps, round, guard });

  const draft = await runPlanner(goal, "decompose", { ...callFor(0), attributes });
  calls.push(...draft.calls);
  if (!draft.ok) return engineOutcome(rounds, calls, [plannerFailure(draft)], null, providerError(draft));

  let plan = draft.plan;
  let inForce: NormalizedFinding[] = [];
  // Every critic blocker that blocked in some round, by key, as it last blocked.
  const blocked = new Map<string, NormalizedFinding>();
  for (let index = 0; ; index++) {
    const gated = gate(goal, plan, gates);
    const criticRuns = mode === "every-round" || (mode === "gates-first" && gated.findings.length === 0);
    let audit: CriticAudit | null = null;
    let criticError: string | null = null;
    if (criticRuns) {
      const critique = await runCritic(goal, gated.plan, gated.findings, callFor(index));
      calls.push(...critique.calls);
      audit = critique.audit;
      criticError = critique.providerError;
    }
    const closed = closeRound({
      index,
      goal,
      gated,
      audit,
      inForce,
      dropped: [...blocked.values()].filter((f) => !inForce.some((g) => g.key === f.key)),
      loop: { history, budgetExhausted: budgetExhausted(spendOf(calls), budget), atCap: index + 1 >= cap },
    });
    rounds.push(closed.record);
    history.push(closed.trace);
    inForce = closed.inForce;
    for (const f of inForce) blocked.set(f.key, f);
    if (closed.record.decision !== "revise") return engineOutcome(rounds, calls, closed.reasons, null, criticError);

    const findings = [...gated.findings, ...closed.inForce];
    const plannerMode = goal.replan_policy === "restart" ? "restart" : "revise";
    const next = await runPlanner(goal, plannerMode, { ...callFor(index + 1), attributes }, { plan: gated.plan, findings });
    calls.push(...next.calls);
    if (!next.ok) {
      // The revision this round asked for never came: the round ends the loop after all.
      const reason = plannerFailure(next);
      rounds[rounds.length - 1] = { ...closed.record, decision: "escalate", reason };
      return engineOutcome(rounds, calls, [reason], null, providerError(next));
    }
    plan = next.plan;
  }
}
