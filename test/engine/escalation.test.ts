import { describe, expect, it } from "vitest";
import { failingRoundReasons, roundReasons, type FailingRoundContext, type RoundTrace } from "../../src/loop/escalation.ts";

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

  it("lists every reason that applies, in the order of DESIGN.md §6", () => {
    const rounds = [round("A", ["g1"]), round("B", ["g2"]), round("A", ["g1"])];
    expect(failingRoundReasons(ctx([...rounds, round("A", ["g1"])], { budgetExhausted: true, replanPolicy: "abort", atCap: true }))).toEqual([
      "budget_exceeded",
      "replan_aborted",
      "converged_stalled",
      "plan_oscillation_detected",
      "revision_cap_reached",
    ]);
    expect(failingRoundReasons(ctx(rounds))).toEqual(["regression_thrashing", "plan_oscillation_detected"]);
  });

  it("stall needs the same content and the same blocker keys as the previous round", () => {
    expect(failingRoundReasons(ctx([round("A", ["g1"]), round("A", ["g1"])]))).toEqual(["converged_stalled"]);
    expect(failingRoundReasons(ctx([round("A", ["g1"]), round("A", ["g1"], ["c1"])]))).toEqual([]);
    expect(failingRoundReasons(ctx([round("A", ["g1", "g2"]), round("A", ["g2", "g1"])]))).toEqual(["converged_stalled"]);
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
  it("a passing round has none; an unavailable critic is its own reason, or budget_exceeded when the budget kept it away", () => {
    const one = ctx([round("A")], { atCap: true });
    expect(roundReasons("pass", null, one)).toEqual([]);
    expect(roundReasons("critic_unavailable", "invalid_output", one)).toEqual(["critic_unavailable"]);
    expect(roundReasons("critic_unavailable", "budget_exceeded", one)).toEqual(["budget_exceeded"]);
    expect(roundReasons("blocked", null, one)).toEqual(["revision_cap_reached"]);
  });
});
