import type { EscalationReason, ReplanPolicy } from "../formats/enums.ts";

/** What the escalation checks need to know of each round so far. */
export interface RoundTrace {
  structuralHash: string;
  gateBlockerKeys: readonly string[];
  blockerKeys: readonly string[];
}

export interface FailingRoundContext {
  /** Rounds so far, the failing one last. */
  rounds: readonly RoundTrace[];
  budgetExhausted: boolean;
  replanPolicy: ReplanPolicy;
  /** The failing round was the last the cap allows. */
  atCap: boolean;
}

const sameSet = (a: readonly string[], b: readonly string[]) => {
  const setA = new Set(a);
  const setB = new Set(b);
  return setA.size === setB.size && [...setA].every((k) => setB.has(k));
};

/**
 * Every escalation reason that applies after a failing round, in the order of docs/design.md §6
 * (the first is the trial's reason). Empty: the loop may revise. Pure.
 */
export function failingRoundReasons(ctx: FailingRoundContext): EscalationReason[] {
  const { rounds } = ctx;
  const current = rounds[rounds.length - 1];
  if (!current) throw new Error("failingRoundReasons needs the failing round");
  const previous = rounds.length >= 2 ? rounds[rounds.length - 2] : undefined;
  const earlier = rounds.slice(0, -2);
  const reasons: EscalationReason[] = [];
  if (ctx.budgetExhausted) reasons.push("budget_exceeded");
  if (ctx.replanPolicy === "abort") reasons.push("replan_aborted");
  if (previous) {
    // A fixed gate defect came back: absent in the previous round, present in an earlier one.
    const fixedBefore = new Set(earlier.flatMap((r) => r.gateBlockerKeys));
    const cameBack = current.gateBlockerKeys.some((k) => !previous.gateBlockerKeys.includes(k) && fixedBefore.has(k));
    if (cameBack) reasons.push("regression_thrashing");
    if (previous.structuralHash === current.structuralHash && sameSet(previous.blockerKeys, current.blockerKeys)) reasons.push("converged_stalled");
  }
  // The plan went somewhere and came back: a plan that never changed is not oscillating.
  const moved = previous !== undefined && previous.structuralHash !== current.structuralHash;
  if (moved && earlier.some((r) => r.structuralHash === current.structuralHash)) reasons.push("plan_oscillation_detected");
  if (ctx.atCap) reasons.push("revision_cap_reached");
  return reasons;
}

/** What the escalation reasons need of a judged round. */
export interface JudgedRound {
  verdict: "pass" | "blocked" | "critic_unavailable";
  /** The unavailable critic's reason (invalid_output | provider_error | budget_exceeded), else null. */
  auditReason: string | null;
  gateBlocked: boolean;
  criticBlocked: boolean;
}

/**
 * The reasons a judged round escalates for; empty when it passed or may be revised. An unavailable
 * critic escalates at once (fail closed) with that reason alone, as budget_exceeded when the
 * budget kept it from running. `loop` is null for a frozen plan (a critic-only trial), which
 * cannot be revised: it names who blocked it, the gates, the critic, or both.
 */
export function roundReasons(round: JudgedRound, loop: FailingRoundContext | null): EscalationReason[] {
  if (round.verdict === "pass") return [];
  if (round.verdict === "critic_unavailable") return [round.auditReason === "budget_exceeded" ? "budget_exceeded" : "critic_unavailable"];
  if (loop === null) {
    const who: EscalationReason[] = [];
    if (round.gateBlocked) who.push("gate_blocked");
    if (round.criticBlocked) who.push("critic_blocked");
    return who;
  }
  return failingRoundReasons(loop);
}
