import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { holm, holmByFamily, holmTaroneByFamily } from "../../src/stats/multiplicity.ts";
import {
  itemsForNonInferiority,
  mcnemar,
  mcnemarChiSquare,
  mcnemarExact,
  nonInferiorityBound,
  pairedDelta,
  mantelHaenszel,
  pairedRatioDelta,
  twoSidedP,
} from "../../src/stats/paired.ts";
import { meanInterval } from "../../src/stats/mean.ts";
import { studentTCdf } from "../../src/stats/distributions.ts";

describe("McNemar", () => {
  it("exact b = 1, c = 7 (methodology §13)", () => {
    expect(mcnemarExact(1, 7)).toBeCloseTo(0.070312, 6);
    expect(mcnemarExact(7, 1)).toBeCloseTo(0.070312, 6);
  });
  it("six one-way discordant pairs are the fewest that reach p < 0.05 (§3)", () => {
    expect(mcnemarExact(0, 5)).toBeGreaterThan(0.05);
    expect(mcnemarExact(0, 6)).toBeLessThan(0.05);
  });
  it("no discordant pair gives p = 1", () => {
    expect(mcnemarExact(0, 0)).toBe(1);
  });
  it("χ² with correction b = 10, c = 25 (§13), chosen above 25 discordant pairs", () => {
    const { statistic, p } = mcnemarChiSquare(10, 25);
    expect(statistic).toBeCloseTo(5.6, 12);
    expect(p).toBeCloseTo(0.01796, 5);
    expect(mcnemar(10, 25).method).toBe("chi_square");
    expect(mcnemar(1, 7)).toEqual({ p: mcnemarExact(1, 7), method: "exact" });
  });
});

describe("Holm", () => {
  it("matches the §13 vector, in input order", () => {
    const adjusted = holm([0.001, 0.012, 0.03, 0.04, 0.2]);
    [0.005, 0.048, 0.09, 0.09, 0.2].forEach((v, i) => expect(adjusted[i]).toBeCloseTo(v, 12));
    const shuffled = holm([0.2, 0.04, 0.001, 0.03, 0.012]);
    [0.2, 0.09, 0.005, 0.09, 0.048].forEach((v, i) => expect(shuffled[i]).toBeCloseTo(v, 12));
  });
  it("within families: each family is corrected alone, and a null is no test", () => {
    // The §13 vector split into two families (odd and even places), with a null in the middle.
    const ps = [0.001, 0.012, null, 0.03, 0.04, 0.2];
    const adjusted = holmByFamily(ps, (i) => (i % 2 === 0 ? "a" : "b"));
    // a: 0.001, 0.04 → 0.002, 0.04; b: 0.012, 0.03, 0.2 → 0.036, 0.06, 0.2
    [0.002, 0.036, null, 0.06, 0.04, 0.2].forEach((v, i) => (v === null ? expect(adjusted[i]).toBeNull() : expect(adjusted[i]).toBeCloseTo(v, 12)));
    // One family by default: Holm over the defined p-values.
    expect(holmByFamily([0.2, null, 0.04])).toEqual([...holm([0.2, 0.04]).slice(0, 1), null, holm([0.2, 0.04])[1]]);
  });
  it("never lowers a p-value and caps at 1", () => {
    fc.assert(fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 }), (ps) => holm(ps).every((q, i) => q >= ps[i]! && q <= 1)));
  });
});

describe("Holm over the tests that can reach the level (Tarone)", () => {
  it("known answer: a test whose margins allow no p below α/m takes no share of α", () => {
    // α 0.05: at m = 1 and 2 three tests could reach α/m; at m = 3 the same three (0.2 > 0.05/3 is out).
    const adjusted = holmTaroneByFamily([0.001, 0.002, 0.5, 0.3], [0, 0, 0.2, 0.01], 0.05);
    [0.003, 0.004, 1, 0.3].forEach((v, i) => expect(adjusted[i]).toBeCloseTo(v, 12));
    // Two count tests with no event anywhere (smallest p 1) leave the third alone in its family.
    expect(holmTaroneByFamily([0.004, 1, 1], [0, 1, 1], 0.005)).toEqual([0.004, 1, 1]);
    expect(holm([0.004, 1, 1])[0]).toBeCloseTo(0.012, 12);
  });
  it("is Holm within families when every test is continuous, and a null is no test", () => {
    const ps = [0.001, 0.012, null, 0.03, 0.04, 0.2];
    const family = (i: number) => (i % 2 === 0 ? "a" : "b");
    expect(holmTaroneByFamily(ps, [0, 0, 0, 0, 0, 0], 0.05, family)).toEqual(holmByFamily(ps, family));
  });
  it("never adjusts a testable p above Holm's over all the family's tests, and gives 1 to the rest", () => {
    const test = fc.record({ p: fc.double({ min: 0, max: 1, noNaN: true }), minP: fc.double({ min: 0, max: 1, noNaN: true }) });
    fc.assert(
      fc.property(fc.array(test, { minLength: 1, maxLength: 20 }), fc.double({ min: 0.001, max: 0.2, noNaN: true }), (tests, alpha) => {
        const ps = tests.map((t) => Math.max(t.p, t.minP));
        const tarone = holmTaroneByFamily(
          ps,
          tests.map((t) => t.minP),
          alpha,
        );
        const plain = holm(ps);
        return tarone.every((q, i) => q === 1 || (q! <= plain[i]! + 1e-12 && q! >= ps[i]!));
      }),
    );
  });
});

describe("clustered mean interval", () => {
  // §13: 8 items × 5 trials, under-claim rows 00000/00001/00111/00000/11111/00000/01000/00000.
  const rows = ["00000", "00001", "00111", "00000", "11111", "00000", "01000", "00000"];
  const itemMeans = rows.map((r) => [...r].filter((c) => c === "1").length / r.length);
  it("gives rate 0.25 and clustered SE 0.129560 (the naive binomial SE would be 0.068465)", () => {
    const ci = meanInterval(itemMeans)!;
    expect(ci.mean).toBeCloseTo(0.25, 12);
    expect(ci.se).toBeCloseTo(0.12956, 6);
    expect(Math.sqrt((0.25 * 0.75) / 40)).toBeCloseTo(0.068465, 6);
    expect(ci.low).toBeCloseTo(0.25 - 2.364624251592784 * ci.se!, 10);
  });
  it("has no interval for a single item", () => {
    expect(meanInterval([0.4])).toEqual({ mean: 0.4, se: null, low: null, high: null, n: 1, clusters: 1 });
    expect(meanInterval([])).toBeNull();
  });
  it("contains its point and is invariant under order", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 30 }), (xs) => {
        const a = meanInterval(xs)!;
        const b = meanInterval([...xs].reverse())!;
        return a.low! <= a.mean + 1e-12 && a.mean <= a.high! + 1e-12 && Math.abs(a.low! - b.low!) < 1e-9;
      }),
    );
  });
});

describe("cluster-robust mean interval (fixture groups as clusters)", () => {
  it("known answer: 0, 0, 1, 1 in clusters a, a, b, b → SE 0.5 on 1 df (naive 0.289)", () => {
    const ci = meanInterval([0, 0, 1, 1], 0.95, ["a", "a", "b", "b"])!;
    // √(G/(G − 1) · Σ_g (Σ_i (y_i − ȳ))²)/n = √(2 · ((−1)² + 1²))/4 = 0.5
    expect(ci).toMatchObject({ mean: 0.5, se: expect.closeTo(0.5, 12), clusters: 2, n: 4 });
    expect(ci.high).toBeCloseTo(0.5 + 12.706204736 * 0.5, 6);
    expect(meanInterval([0, 0, 1, 1])!.se).toBeCloseTo(0.288675, 6);
  });
  it("known answer with a mixed design: 0, 0, 1, 1, .5, .2 in a, a, b, b, c, d → SE 0.277889 on 3 df", () => {
    const ci = meanInterval([0, 0, 1, 1, 0.5, 0.2], 0.95, ["a", "a", "b", "b", "c", "d"])!;
    expect(ci.se).toBeCloseTo(0.277889, 6);
    expect(ci.high).toBeCloseTo(1.334366, 5);
  });
  it("singleton clusters give exactly the unclustered interval", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 20 }), (xs) => {
        const a = meanInterval(xs)!;
        const b = meanInterval(
          xs,
          0.95,
          xs.map((_, i) => `c${i}`),
        )!;
        return Math.abs(a.se! - b.se!) < 1e-12 && a.clusters === b.clusters;
      }),
    );
  });
  it("has no interval with one cluster, however many items", () => {
    expect(meanInterval([0, 1, 0], 0.95, ["g", "g", "g"])).toMatchObject({ se: null, low: null, clusters: 1, n: 3 });
  });
});

describe("paired delta and non-inferiority (§12)", () => {
  it("reproduces the worked example: Δ = 0.02, SE = 0.025, n = 40 → U = 0.062, p ≈ 0.21", () => {
    const delta = { mean: 0.02, se: 0.025, low: null, high: null, n: 40, clusters: 40, pGreater: null };
    expect(nonInferiorityBound(delta)).toBeCloseTo(0.02 + 1.6848751217112248 * 0.025, 10);
    expect(nonInferiorityBound(delta)!).toBeGreaterThan(0.05);
    expect(1 - studentTCdf(0.02 / 0.025, 39)).toBeCloseTo(0.2143, 4);
  });
  it("computes the paired t on per-item values", () => {
    const d = pairedDelta([0.2, 0.4, 0.6, 0.4], [0.2, 0.2, 0.2, 0.2])!;
    expect(d.mean).toBeCloseTo(0.2, 12);
    // differences 0, .2, .4, .2: sd = 0.163299, se = 0.0816497, t = 2.44949 on 3 df → p = 0.045861 (scipy)
    expect(d.se).toBeCloseTo(0.0816497, 6);
    expect(d.pGreater).toBeCloseTo(0.0458606, 6);
  });
  it("pairs two ratios of sums over the same items by the delta method, clustered (numpy/scipy 1.17)", () => {
    // 6/17 − 3/14 = 0.138655; ψ_i summed per cluster a, a, b, c; SE 0.123512 on 2 df.
    const items = [
      { aNum: 1, aDen: 4, bNum: 0, bDen: 3 },
      { aNum: 2, aDen: 5, bNum: 1, bDen: 5 },
      { aNum: 0, aDen: 2, bNum: 1, bDen: 2 },
      { aNum: 3, aDen: 6, bNum: 1, bDen: 4 },
    ];
    const d = pairedRatioDelta(items, 0.95, ["a", "a", "b", "c"])!;
    expect(d).toMatchObject({
      mean: expect.closeTo(0.1386555, 7),
      se: expect.closeTo(0.1235116, 7),
      low: expect.closeTo(-0.3927722, 6),
      high: expect.closeTo(0.6700831, 6),
      n: 4,
      clusters: 3,
    });
    expect(twoSidedP(d.mean, d.se, d.clusters - 1)).toBeCloseTo(0.3782678, 6);
    // An item with no unit on either side is left out; a side with no unit at all has no ratio.
    expect(pairedRatioDelta([...items, { aNum: 0, aDen: 0, bNum: 0, bDen: 0 }], 0.95, ["a", "a", "b", "c", "d"])!.clusters).toBe(3);
    expect(pairedRatioDelta([{ aNum: 0, aDen: 0, bNum: 1, bDen: 2 }])).toBeNull();
  });
  it("its SE is the paired t's when every denominator is 1 (a ratio of per-item 0/1 values is their mean)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.boolean()), { minLength: 3, maxLength: 30 }), (rows) => {
        const d = pairedRatioDelta(rows.map(([a, b]) => ({ aNum: a ? 1 : 0, aDen: 1, bNum: b ? 1 : 0, bDen: 1 })))!;
        const t = pairedDelta(
          rows.map(([a]) => (a ? 1 : 0)),
          rows.map(([, b]) => (b ? 1 : 0)),
        )!;
        return Math.abs(d.mean - t.mean) < 1e-12 && Math.abs(d.se! - t.se!) < 1e-12;
      }),
    );
  });
  it("Mantel–Haenszel over items as strata (scipy 1.17: the CMH χ² without correction is z²)", () => {
    // 3/5 vs 0/5, 1/5 vs 1/5, 4/5 vs 2/5, 0/5 vs 0/5: Σ (a − E) = 2.5, Σ V = 0.583 + 0.444 + 0.667.
    const mh = mantelHaenszel([
      { aEvents: 3, aTrials: 5, bEvents: 0, bTrials: 5 },
      { aEvents: 1, aTrials: 5, bEvents: 1, bTrials: 5 },
      { aEvents: 4, aTrials: 5, bEvents: 2, bTrials: 5 },
      { aEvents: 0, aTrials: 5, bEvents: 0, bTrials: 5 },
    ])!;
    expect(mh.z).toBeCloseTo(1.9205532, 6);
    expect(mh.p).toBeCloseTo(0.0547881, 6);
    expect(mantelHaenszel([{ aEvents: 0, aTrials: 5, bEvents: 0, bTrials: 5 }])).toBeNull();
  });
  it("sizes a non-inferiority test (§11: 90, 23 and 40 items)", () => {
    const sd = (p: number) => Math.sqrt((2 * p * (1 - p)) / 5);
    expect(itemsForNonInferiority({ sdDiff: sd(0.1), margin: 0.05 })).toBe(90);
    expect(itemsForNonInferiority({ sdDiff: sd(0.1), margin: 0.1 })).toBe(23);
    expect(itemsForNonInferiority({ sdDiff: sd(0.2), margin: 0.1 })).toBe(40);
  });
});
