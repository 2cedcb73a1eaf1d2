import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { addObservation, cusumArl0, cusumStep, cusumLimit, predictionScore, sdOf, statsOf, trailingWindowT, EMPTY_STATS } from "../../src/stats/drift.ts";
import { createRng } from "../../src/stats/random.ts";
import { normalQuantile } from "../../src/stats/distributions.ts";

describe("running reference (Welford)", () => {
  it("matches the two-pass mean and SD", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: 2, maxLength: 30 }), (xs) => {
        const s = statsOf(xs);
        const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
        const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
        return s.n === xs.length && Math.abs(s.mean - mean) < 1e-9 && Math.abs(sdOf(s)! - sd) < 1e-9;
      }),
    );
    expect(sdOf(addObservation(EMPTY_STATS, 3))).toBeNull();
  });
});

describe("prediction score against a reference of earlier runs", () => {
  it("known answer: reference 1, 2, 3, 4 and a new run at 10 (scipy 1.17)", () => {
    const s = predictionScore(statsOf([1, 2, 3, 4]), 10)!;
    expect(s.T).toBeCloseTo(5.196152, 6);
    expect(s.df).toBe(3);
    expect(s.p).toBeCloseTo(0.013847, 6);
    expect(s.z).toBeCloseTo(2.461212, 5);
    expect(predictionScore(statsOf([1, 2, 3, 4]), -5)!.z).toBeCloseTo(-2.461212, 5);
  });
  it("is undefined without two runs or without spread", () => {
    expect(predictionScore(statsOf([1]), 2)).toBeNull();
    expect(predictionScore(statsOf([0, 0, 0]), 1)).toBeNull();
  });
  it("keeps the precision of far tails", () => {
    const s = predictionScore(statsOf([0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]), 40)!;
    expect(s.p).toBeGreaterThan(0);
    expect(s.p).toBeLessThan(1e-15);
    expect(Number.isFinite(s.z)).toBe(true);
  });
  it("its normal score is N(0, 1) in control whatever the reference size (self-starting)", () => {
    // Normal runs: each judged against all runs before it, from the third on.
    const rng = createRng(11, "self-starting");
    const normal = () => normalQuantile(Math.min(1 - 1e-12, Math.max(1e-12, rng())));
    const scores: number[] = [];
    for (let series = 0; series < 400; series++) {
      let ref = statsOf([normal(), normal()]);
      for (let t = 0; t < 10; t++) {
        const x = normal();
        scores.push(predictionScore(ref, x)!.z);
        ref = addObservation(ref, x);
      }
    }
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    const variance = scores.reduce((a, b) => a + (b - mean) ** 2, 0) / (scores.length - 1);
    // 4,000 scores: the mean's SE is 0.016 and the variance's about 0.022.
    expect(Math.abs(mean)).toBeLessThan(0.06);
    expect(Math.abs(variance - 1)).toBeLessThan(0.09);
    expect(scores.filter((z) => Math.abs(z) > 1.96).length / scores.length).toBeCloseTo(0.05, 1);
  });
});

/** The CUSUM over a whole series, carried one cusumStep at a time from 0 as trend carries it. */
function cusum(series: readonly number[], opts: Parameters<typeof cusumStep>[2]) {
  let c = 0;
  return series.map((m) => {
    const point = cusumStep(c, m, opts);
    c = point.value;
    return point;
  });
}

describe("CUSUM", () => {
  it("accumulates standardized excess over k", () => {
    const points = cusum([0.1, 0.3, 0.3, 0.3, 0.3, 0.3], { mu0: 0.1, sigma0: 0.1, h: 4.77 });
    // steps: 0, then +1.5 each run: 1.5, 3, 4.5, 6 (> 4.77), 7.5
    expect(points.map((p) => p.value)).toEqual([0, 1.5, 3, 4.5, 6, 7.5].map((v) => expect.closeTo(v, 12)));
    expect(points.map((p) => p.alert)).toEqual([false, false, false, false, true, true]);
  });
  it("never goes below zero", () => {
    expect(cusum([0, 0, 0], { mu0: 1, sigma0: 1, h: 4 }).map((p) => p.value)).toEqual([0, 0, 0]);
  });
  it("in-control run length (Siegmund): k = 0.5, h = 4 → 338 and h = 5 → 939, twice the two-sided 168 and 465 of the tables", () => {
    expect(cusumArl0(0.5, 4)).toBeCloseTo(338.1, 0);
    expect(cusumArl0(0.5, 5)).toBeCloseTo(938.6, 0);
    expect(cusumLimit(0.5, cusumArl0(0.5, 6.25))).toBeCloseTo(6.25, 8);
  });
});

describe("trailing-window T", () => {
  it("is the prediction score of each run against the W runs before it, flagged unreliable below W = 20", () => {
    const points = trailingWindowT([1, 2, 3, 4, 10], 4);
    expect(points.slice(0, 4)).toEqual([null, null, null, null]);
    expect(points[4]).toMatchObject({ T: expect.closeTo(5.196152, 6), df: 3, p: expect.closeTo(0.013847, 6), reliable: false });
    expect(trailingWindowT(Array.from({ length: 21 }, (_, i) => i % 2), 20)[20]!.reliable).toBe(true);
  });
  it("has no point where the window has no spread", () => {
    expect(trailingWindowT([0, 0, 0, 1], 3)[3]).toBeNull();
  });
  it("skips runs without a value, in the window and as points", () => {
    const gappy = trailingWindowT([1, null, 2, 3, null, 4, 10], 4);
    expect(gappy.slice(0, 6)).toEqual([null, null, null, null, null, null]);
    expect(gappy[6]).toEqual(trailingWindowT([1, 2, 3, 4, 10], 4)[4]);
  });
});
