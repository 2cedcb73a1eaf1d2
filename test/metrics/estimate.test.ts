import { describe, expect, it } from "vitest";
import { itemMeanMetric, ratioMetric } from "../../src/metrics/estimate.ts";
import { clopperPearson } from "../../src/stats/proportion.ts";

const ctx = { conf: 0.95, seed: 1, reps: 200 };

describe("no interval claims a certainty the data do not give (METHODOLOGY.md §1, principle 3)", () => {
  it("a mean over items at one value inside its range has no interval: the clusters did not spread, which is not certainty", () => {
    const m = itemMeanMetric(
      [
        { value: 0.5, trials: 5, cluster: "a" },
        { value: 0.5, trials: 5, cluster: "b" },
        { value: 0.5, trials: 5, cluster: "c" },
      ],
      ctx,
    );
    expect(m).toMatchObject({ value: 0.5, ci_low: null, ci_high: null, n_items: 3, n_trials: 15, interval: "t_clustered" });
    // Ten items at 0.2 (one event in five trials each) leave a rounding-sized SE, not 0: still no spread, so the exact interval over the 10 of 50 trials.
    const fifth = itemMeanMetric(
      Array.from({ length: 10 }, (_, i) => ({ value: 0.2, trials: 5, events: 1, cluster: `c${i}` })),
      ctx,
    );
    expect(fifth).toMatchObject({
      numerator: 10,
      denominator: 50,
      interval: "clopper_pearson",
      ci_low: clopperPearson(10, 50).low,
      ci_high: clopperPearson(10, 50).high,
    });
    // With spread, the clustered interval stands.
    const spread = itemMeanMetric(
      [
        { value: 0.4, trials: 5, cluster: "a" },
        { value: 0.6, trials: 5, cluster: "b" },
      ],
      ctx,
    );
    expect(spread.ci_low).toBeLessThan(0.5);
    expect(spread.ci_high).toBeGreaterThan(0.5);
  });

  it("a count per trial at 0 in every trial gets the exact Poisson bound over its trials, never [0, 0]", () => {
    const zeros = Array.from({ length: 4 }, (_, i) => ({ value: 0, trials: 5, cluster: `c${i}` }));
    expect(itemMeanMetric(zeros, ctx, [0, Infinity])).toMatchObject({
      value: 0,
      ci_low: 0,
      ci_high: expect.closeTo(-Math.log(0.05) / 20, 12),
      interval: "poisson_exact",
    });
    // "per 100 goals": one event adds 100 to a trial's value.
    expect(itemMeanMetric(zeros, ctx, [0, Infinity], "t_clustered", 100).ci_high).toBeCloseTo((100 * 2.995732273553991) / 20, 10);
  });

  it("a ratio whose every cluster has the same share gets the exact two-sided interval over its units, not the bootstrap's [v, v]", () => {
    const m = ratioMetric(
      [
        { num: 1, den: 4, trials: 5, cluster: "a" },
        { num: 1, den: 4, trials: 5, cluster: "b" },
        { num: 2, den: 8, trials: 5, cluster: "c" },
      ],
      ctx,
      "test",
    );
    const cp = clopperPearson(4, 16);
    expect(m).toMatchObject({
      value: 0.25,
      ci_low: expect.closeTo(cp.low, 12),
      ci_high: expect.closeTo(cp.high, 12),
      interval: "clopper_pearson",
      numerator: 4,
      denominator: 16,
    });
  });
});
