import type { EscalationReason } from "../formats/enums.ts";
import type { GateFinding, NormalizedFinding, RepairNote } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";
import type { CriticAudit, RoundRecord } from "../formats/records.ts";
import { carryForward } from "./carry-forward.ts";
import { judgeRound } from "./decide.ts";
import { roundReasons, type RoundTrace } from "./escalation.ts";
import { structuralHash } from "./structural.ts";

/** A plan after gates and repairs: the plan the round judges. */
export interface GatedPlan {
  plan: Plan;
  findings: GateFinding[];
  notes: RepairNote[];
}

interface RoundInput {
  index: number;
  goal: Goal;
  gated: GatedPlan;
  /** null when the critic did not run. */
  audit: CriticAudit | null;
  /** Critic blockers in force after the previous round. */
  inForce: readonly NormalizedFinding[];
  /** Critic blockers that blocked in an earlier round and were no longer in force after the previous one (re-checked: one the plan supports again is back in force). */
  dropped?: readonly NormalizedFinding[];
  /** The revision loop around this round; null for a frozen plan (a critic-only trial). */
  loop: LoopState | null;
}

interface LoopState {
  /** Earlier rounds, oldest first. */
  history: readonly RoundTrace[];
  budgetExhausted: boolean;
  atCap: boolean;
}

interface ClosedRound {
  record: RoundRecord;
  trace: RoundTrace;
  /** Escalation reasons that applied; empty when approved or revising. */
  reasons: EscalationReason[];
  /** Critic blockers in force after this round (this audit's and the carried ones). */
  inForce: NormalizedFinding[];
}

/** Judge one round and write its record: approve, revise, or escalate with the first reason. Pure. */
export function closeRound(input: RoundInput): ClosedRound {
  const { goal, gated, audit } = input;
  const tolerance = goal.risk_tolerance;
  const { carried, lapsed } = carryForward(goal, gated.plan, input.inForce, audit, tolerance, input.dropped);
  const judgement = judgeRound({ tolerance, gateFindings: gated.findings, audit, carried });
  const trace: RoundTrace = {
    structuralHash: structuralHash(gated.plan),
    gateBlockerKeys: gated.findings.map((f) => f.key),
    blockerKeys: judgement.blockerKeys,
  };
  const { loop } = input;
  const judged = {
    verdict: judgement.verdict,
    auditReason: audit?.reason ?? null,
    gateBlocked: gated.findings.length > 0,
    criticBlocked: judgement.criticBlockers.length > 0,
  };
  const reasons = roundReasons(
    judged,
    loop && { rounds: [...loop.history, trace], budgetExhausted: loop.budgetExhausted, replanPolicy: goal.replan_policy, atCap: loop.atCap },
  );
  const record: RoundRecord = {
    index: input.index,
    plan: gated.plan,
    structural_hash: trace.structuralHash,
    gate_findings: gated.findings,
    repairs: gated.notes,
    critic: audit,
    carried_forward: carried,
    carry_forward_lapsed: lapsed,
    blocker_keys: judgement.blockerKeys,
    decision: judgement.verdict === "pass" ? "approve" : reasons.length > 0 ? "escalate" : "revise",
    reason: reasons[0] ?? null,
  };
  return { record, trace, reasons, inForce: judgement.criticBlockers };
}
