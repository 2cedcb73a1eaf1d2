import { describe, expect, it } from "vitest";
import { failingRoundReasons, roundReasons, type FailingRoundContext, type JudgedRound, type RoundTrace } from "../../src/loop/escalation.ts";

const round = (structuralHash: string, gateBlockerKeys: string[] = [], criticKeys: string[] = []): RoundTrace => ({
  structuralHash,
  gateBlockerKeys,
  blockerKeys: [...gateBlockerKeys, ...criticKeys],
});
const ctx = (rounds: RoundTrace[], over: Partial<FailingRoundContext> = {}): FailingRoundContext => ({
  rounds,
  budgetExhausted: false,
  replanPolicy: "patch",
  atCap: false,
  ...over,
});

describe("failingRoundReasons", () => {
  it("is empty for a first failing round with room to revise", () => {
    expect(failingRoundReasons(ctx([round("A", ["g1"])]))).toEqual([]);
  });

  it("lists every reason that applies, in the order of docs/design.md §6", () => {
    const rounds = [round("A", ["g1"]), round("B", ["g2"]), round("A", ["g1"])];
    const all = { budgetExhausted: true, replanPolicy: "abort", atCap: true } as const;
    expect(failingRoundReasons(ctx(rounds, all))).toEqual([
      "budget_exceeded",
      "replan_aborted",
      "regression_thrashing",
      "plan_oscillation_detected",
      "revision_cap_reached",
    ]);
    expect(failingRoundReasons(ctx(rounds))).toEqual(["regression_thrashing", "plan_oscillation_detected"]);
    // Stalling (same content as the previous round) and oscillating (different from it) exclude each other.
    expect(failingRoundReasons(ctx([...rounds, round("A", ["g1"])], all))).toEqual([
      "budget_exceeded",
      "replan_aborted",
      "converged_stalled",
      "revision_cap_reached",
    ]);
  });

  it("stall needs the same content and the same blocker keys as the previous round", () => {
    expect(failingRoundReasons(ctx([round("A", ["g1"]), round("A", ["g1"])]))).toEqual(["converged_stalled"]);
    expect(failingRoundReasons(ctx([round("A", ["g1"]), round("A", ["g1"], ["c1"])]))).toEqual([]);
    expect(failingRoundReasons(ctx([round("A", ["g1", "g2"]), round("A", ["g2", "g1"])]))).toEqual(["converged_stalled"]);
  });

  it("oscillation needs the plan to have changed and come back; a plan that never changed is not oscillating", () => {
    expect(failingRoundReasons(ctx([round("A", [], ["c"]), round("A", [], ["d"]), round("A", [], ["e"])]))).toEqual([]);
    expect(failingRoundReasons(ctx([round("A", [], ["c"]), round("B", [], ["d"]), round("B", [], ["e"])]))).toEqual([]);
    expect(failingRoundReasons(ctx([round("A", [], ["c"]), round("A", [], ["d"]), round("B", [], ["e"]), round("A", [], ["f"])]))).toEqual([
      "plan_oscillation_detected",
    ]);
  });

  it("oscillation looks only before the previous round", () => {
    expect(failingRoundReasons(ctx([round("A", [], ["c"]), round("B", [], ["d"]), round("A", [], ["c"])]))).toEqual(["plan_oscillation_detected"]);
    expect(failingRoundReasons(ctx([round("A", [], ["c"]), round("B", [], ["d"]), round("C", [], ["c"])]))).toEqual([]);
  });

  it("regression counts gate keys only, and only ones absent in the previous round", () => {
    expect(failingRoundReasons(ctx([round("A", [], ["c"]), round("B"), round("C", [], ["c"])]))).toEqual([]);
    expect(failingRoundReasons(ctx([round("A", ["g"]), round("B", ["g"]), round("C", ["g"])]))).toEqual([]);
    expect(failingRoundReasons(ctx([round("A", ["g"]), round("B", ["h"]), round("C", ["g", "h"])]))).toEqual(["regression_thrashing"]);
  });
});

describe("roundReasons", () => {
  const judged = (verdict: "pass" | "blocked" | "critic_unavailable", over: Partial<JudgedRound> = {}): JudgedRound => ({
    verdict,
    auditReason: null,
    gateBlocked: verdict === "blocked",
    criticBlocked: false,
    ...over,
  });
  const one = ctx([round("A", ["g"])], { atCap: true, replanPolicy: "abort" });

  it("a passing round has none; an unavailable critic is its own reason alone, or budget_exceeded when the budget kept it away", () => {
    expect(roundReasons(judged("pass"), one)).toEqual([]);
    expect(roundReasons(judged("critic_unavailable", { auditReason: "invalid_output", gateBlocked: true }), one)).toEqual(["critic_unavailable"]);
    expect(roundReasons(judged("critic_unavailable", { auditReason: "provider_error" }), one)).toEqual(["critic_unavailable"]);
    expect(roundReasons(judged("critic_unavailable", { auditReason: "budget_exceeded" }), one)).toEqual(["budget_exceeded"]);
    expect(roundReasons(judged("blocked"), one)).toEqual(["replan_aborted", "revision_cap_reached"]);
  });

  it("a frozen plan (no loop) names who blocked it, never a loop reason", () => {
    expect(roundReasons(judged("blocked"), null)).toEqual(["gate_blocked"]);
    expect(roundReasons(judged("blocked", { gateBlocked: false, criticBlocked: true }), null)).toEqual(["critic_blocked"]);
    expect(roundReasons(judged("blocked", { criticBlocked: true }), null)).toEqual(["gate_blocked", "critic_blocked"]);
    expect(roundReasons(judged("critic_unavailable", { auditReason: "invalid_output", gateBlocked: true }), null)).toEqual(["critic_unavailable"]);
  });
});
