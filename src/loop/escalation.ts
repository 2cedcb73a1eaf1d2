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
 * Every escalation reason that applies after a failing round, in the order of DESIGN.md §6
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
    if (previous.structuralHash === current.structuralHash && sameSet(previous.blockerKeys, current.blockerKeys))
      reasons.push("converged_stalled");
  }
  if (earlier.some((r) => r.structuralHash === current.structuralHash)) reasons.push("plan_oscillation_detected");
  if (ctx.atCap) reasons.push("revision_cap_reached");
  return reasons;
}

/**
 * The reasons a judged round escalates for; empty when it passed or may be revised. An unavailable
 * critic escalates at once (fail closed), as budget_exceeded when the budget kept it from running.
 */
export function roundReasons(
  verdict: "pass" | "blocked" | "critic_unavailable",
  auditReason: string | null,
  ctx: FailingRoundContext,
): EscalationReason[] {
  if (verdict === "pass") return [];
  if (verdict === "critic_unavailable") return [auditReason === "budget_exceeded" ? "budget_exceeded" : "critic_unavailable"];
  return failingRoundReasons(ctx);
}
