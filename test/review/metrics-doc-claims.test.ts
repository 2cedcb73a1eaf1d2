/**
 * Behaviour that METHODOLOGY.md now states (doc fixes, the code was right): the rule of three is
 * the Clopper–Pearson bound at k = 0 and conf 0.90, and a Wilson item-share interval is given from
 * one item on while clustered intervals need two.
 */
import { describe, expect, it } from "vitest";
import { summarize } from "../../src/metrics/summary.ts";
import { clopperPearson } from "../../src/stats/proportion.ts";
import { boundaryTrials, fixture } from "../metrics/builders.ts";

describe("METHODOLOGY.md §2 claims", () => {
  it("1 − 0.05^(1/n) is clopperPearson(0, n, 0.9).high", () => {
    for (const n of [1, 5, 30, 59]) expect(clopperPearson(0, n, 0.9).high).toBeCloseTo(1 - 0.05 ** (1 / n), 10);
    expect(clopperPearson(0, 30, 0.9).high).toBeLessThan(3 / 30);
  });
  it("one seeded fixture: an item share has an interval (exact here: 1 of 1 items), the clustered per-call rate has none", () => {
    const s = summarize(
      { trials: boundaryTrials("s", "PPB"), fixtures: [fixture("s", { defects: [{ task: "a", family: "weak_rollback" }] })], goals: [] },
      { seed: 0, bootstrapReps: 50 },
    );
    expect(s.metrics.underclaim_approvals).toMatchObject({ value: expect.closeTo(2 / 3, 12), ci_low: null, ci_high: null, n_items: 1 });
    expect(s.metrics.underclaim_approvals_majority).toMatchObject({
      value: 1,
      ci_low: expect.closeTo(0.05, 12),
      ci_high: 1,
      n_items: 1,
      interval: "clopper_pearson",
    });
  });
});
