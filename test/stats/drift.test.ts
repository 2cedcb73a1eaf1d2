import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  addObservation,
  clusterRunVariance,
  countDispersion,
  pairedShiftScore,
  predictionScore,
  referenceShiftScore,
  sdOf,
  statsOf,
  trailingWindowT,
  EMPTY_STATS,
} from "../../src/stats/drift.ts";
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

describe("shift of the mean of j runs against a fixed reference", () => {
  it("known answer: the mean of 3 runs at 10 against 1, 2, 3, 4 is T = (10 − 2.5)/(s √(1/3 + 1/4)) on 3 df (scipy 1.17)", () => {
    const s = predictionScore(statsOf([1, 2, 3, 4]), 10, 3)!;
    expect(s.T).toBeCloseTo(7.606388, 6);
    expect(s.p).toBeCloseTo(0.0047158, 6);
  });
  it("paired over items: the larger of the items' sampling variance and the reference runs' between-run one (scipy 1.17)", () => {
    // Between-run SD 0.05 of 3 runs dominates an item SE of 0.02: V = (1 + 1/3)·0.05².
    expect(pairedShiftScore(0.1, 0.02, 40, 1, statsOf([0.1, 0.2, 0.15]))).toMatchObject({
      T: expect.closeTo(1.732051, 6),
      df: 40,
      p: expect.closeTo(0.0909707, 6),
    });
    // Runs that vary by sampling alone (SD 0.01): the items' SE decides, on its 40 df.
    expect(pairedShiftScore(0.1, 0.02, 40, 1, statsOf([0.1, 0.11, 0.12]))).toMatchObject({ T: expect.closeTo(5, 9), p: expect.closeTo(1.1840066e-5, 10) });
    // A one-run reference has no between-run SD: the SE alone; no variance at all is no test.
    expect(pairedShiftScore(0.1, 0.02, 40, 1, statsOf([0.1]))!.T).toBeCloseTo(5, 9);
    expect(pairedShiftScore(0.1, 0, 40, 1, statsOf([0.1, 0.1]))).toBeNull();
  });
  it("holds its false-alarm rate over many seeds: runs that vary by sampling alone, j = 1 and 3, against 3 reference runs", () => {
    // 300 items, each run's item value a Bernoulli(0.3) share of 5 trials: the run-to-run spread is sampling alone.
    const rng = createRng(5, "paired-shift");
    const run = () => Array.from({ length: 300 }, () => Array.from({ length: 5 }, () => (rng() < 0.3 ? 1 : 0)).reduce<number>((a, b) => a + b, 0) / 5);
    let alarms = 0;
    let tests = 0;
    for (let h = 0; h < 300; h++) {
      const ref = [run(), run(), run()];
      const refItem = ref[0]!.map((_, i) => (ref[0]![i]! + ref[1]![i]! + ref[2]![i]!) / 3);
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      for (const j of [1, 3]) {
        const group = Array.from({ length: j }, run);
        const d = refItem.map((r, i) => mean(group.map((g) => g[i]!)) - r);
        const se = Math.sqrt(d.reduce((a, x) => a + (x - mean(d)) ** 2, 0) / (d.length - 1) / d.length);
        const score = pairedShiftScore(mean(d), se, d.length - 1, j, statsOf(ref.map(mean)))!;
        tests++;
        if (score.p <= 0.05) alarms++;
      }
    }
    // 600 tests at 0.05: about 30 in control; the max over the two variances makes it conservative.
    expect(alarms / tests).toBeLessThan(0.05);
    expect(alarms / tests).toBeGreaterThan(0.01);
  });
});

describe("dispersion of runs' event counts (does the reference vary beyond sampling?)", () => {
  it("known answer: the committed baseline's critic misses, 16 18 19 20 31 22 14 15 of 155 (scipy 1.17 chi2.sf)", () => {
    const d = countDispersion([16, 18, 19, 20, 31, 22, 14, 15].map((events) => ({ events, units: 155 })))!;
    expect(d.statistic).toBeCloseTo(12.025806451612903, 10);
    expect(d.df).toBe(7);
    expect(d.p).toBeCloseTo(0.09971339681319961, 10);
  });
  it("reads a between-run excess as a small p, and is undefined without two runs or without variation", () => {
    expect(countDispersion([0, 25, 0].map((events) => ({ events, units: 50 })))!.p).toBeLessThan(1e-12);
    expect(countDispersion([{ events: 3, units: 10 }])).toBeNull();
    expect(countDispersion([0, 0, 0].map((events) => ({ events, units: 10 })))).toBeNull();
    expect(countDispersion([10, 10].map((events) => ({ events, units: 10 })))).toBeNull();
  });
  it("is uniform-or-conservative for runs that vary by sampling alone, over many seeds", () => {
    // Fixed items with unequal rates (0.02 to 0.60), three runs at a time: the runs vary less than
    // binomial units would (X² about 0.86 χ² here, so about 3% of tests reject at 0.05).
    const rng = createRng(8, "dispersion");
    const run = () =>
      Array.from({ length: 30 }, (_, i) => Array.from({ length: 5 }, () => (rng() < 0.02 * (i + 1) ? 1 : 0)).reduce<number>((a, b) => a + b, 0)).reduce(
        (a, b) => a + b,
        0,
      );
    const H = 3000;
    const rejected = Array.from({ length: H }, () => countDispersion([run(), run(), run()].map((events) => ({ events, units: 150 })))!.p).filter(
      (p) => p <= 0.05,
    ).length;
    expect(rejected / H).toBeLessThan(0.05);
    expect(rejected / H).toBeGreaterThan(0.015);
  });
});

describe("shift of the mean of j runs on the reference runs' variance and the run's own items'", () => {
  it("known answer: the test with the larger p is kept (scipy 1.17)", () => {
    // Δ 0.12 on one run's variance 0.0048 from 3 reference runs (18 df): T = 0.12/√((1 + 1/3) · 0.0048) = 1.5, p 0.151;
    // on the items' paired SE 0.0952 (9 df): T = 1.2603, p 0.239.
    expect(referenceShiftScore(0.12, { variance: 0.0048, df: 18 }, 1, 3, null)).toMatchObject({
      T: expect.closeTo(1.5, 9),
      p: expect.closeTo(0.15095045218426736, 9),
    });
    expect(referenceShiftScore(0.12, { variance: 0.0048, df: 18 }, 1, 3, { se: 0.09521904571390467, df: 9 })).toMatchObject({
      T: expect.closeTo(1.260252075625209, 9),
      df: 9,
      p: expect.closeTo(0.23927242482697827, 9),
    });
    expect(referenceShiftScore(0.12, null, 1, 3, { se: 0.0952, df: 9 })!.df).toBe(9);
    expect(referenceShiftScore(0.12, { variance: 0, df: 2 }, 1, 3, null)).toBeNull();
  });
  it("holds its level for a metric of rare item values, where three reference runs alone do not (over many seeds)", () => {
    // 30 items, each small in a run (0 to 0.1) but for a rare event (3%) worth 0.5 to 1: three reference runs
    // often see none in an item, so their variance alone misses what a run that has one shows in its own items.
    const rng = createRng(21, "rare-items");
    const run = () => Array.from({ length: 30 }, () => (rng() < 0.03 ? 0.5 + 0.5 * rng() : 0.1 * rng()));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const H = 20000;
    let onReference = 0;
    let kept = 0;
    for (let h = 0; h < H; h++) {
      const ref = [run(), run(), run()];
      const x = run();
      const perItem = x.map((_, i) => ref.map((r) => r[i]!));
      const d = x.map((v, i) => v - mean(perItem[i]!));
      const se = Math.sqrt(d.reduce((a, v) => a + (v - mean(d)) ** 2, 0) / (d.length - 1) / d.length);
      const variance = clusterRunVariance(perItem, 30);
      const alone = referenceShiftScore(mean(d), variance, 1, 3, null);
      const both = referenceShiftScore(mean(d), variance, 1, 3, { se, df: 29 });
      if (alone && alone.p <= 0.01) onReference++;
      if (both && both.p <= 0.01) kept++;
    }
    // At 0.01 two-sided: the reference runs alone reject about 4% of in-control runs; the kept test under 1%.
    expect(onReference / H).toBeGreaterThan(0.02);
    expect(kept / H).toBeLessThan(0.01);
  });
});

describe("trailing-window T", () => {
  it("is the prediction score of each run against the W runs before it, flagged unreliable below W = 20", () => {
    const points = trailingWindowT([1, 2, 3, 4, 10], 4);
    expect(points.slice(0, 4)).toEqual([null, null, null, null]);
    expect(points[4]).toMatchObject({ T: expect.closeTo(5.196152, 6), df: 3, p: expect.closeTo(0.013847, 6), reliable: false });
    expect(
      trailingWindowT(
        Array.from({ length: 21 }, (_, i) => i % 2),
        20,
      )[20]!.reliable,
    ).toBe(true);
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
