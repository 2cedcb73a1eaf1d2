import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { clusterBootstrap, ratioBootstrap } from "../../src/stats/bootstrap.ts";
import { excessDisagreementTest, pairedSwapTest } from "../../src/stats/permutation.ts";
import { createRng } from "../../src/stats/random.ts";

const mean = (xs: readonly number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;

describe("cluster bootstrap", () => {
  it("is reproducible from its seed and records it", () => {
    const items = [0, 0.2, 0.4, 0.4, 1, 0, 0.2, 0];
    const a = clusterBootstrap(items, mean, { reps: 500, seed: 7 });
    const b = clusterBootstrap(items, mean, { reps: 500, seed: 7 });
    expect(a).toEqual(b);
    expect(a.seed).toBe(7);
    expect(a.value).toBeCloseTo(0.275, 12);
    expect(a.low!).toBeLessThan(a.value!);
    expect(a.high!).toBeGreaterThan(a.value!);
  });
  it("collapses to the point when every item is equal", () => {
    const r = clusterBootstrap([0.3, 0.3, 0.3], mean, { reps: 200, seed: 1 });
    expect([r.low, r.high]).toEqual([0.3, 0.3]);
  });
  it("resamples whole clusters: with two clusters of equal items every replicate mean is 0, 0.5 or 1", () => {
    const items = [0, 0, 1, 1];
    const seen = new Set<number>();
    const r = clusterBootstrap(
      items,
      (sample) => {
        const m = mean(sample);
        seen.add(m);
        return m;
      },
      { reps: 300, seed: 3, clusterOf: (x) => (x === 0 ? "a" : "b") },
    );
    expect([...seen].every((m) => [0, 0.5, 1].includes(m))).toBe(true);
    expect([r.low, r.high]).toEqual([0, 1]);
    expect(clusterBootstrap([0, 0, 1, 1], mean, { reps: 50, seed: 3, clusterOf: () => "one" })).toMatchObject({ value: 0.5, low: null, high: null });
  });
  it("gives no interval below two items, and none when the statistic is undefined", () => {
    expect(clusterBootstrap([0.5], mean, { reps: 100, seed: 1 })).toMatchObject({ value: 0.5, low: null, high: null });
    expect(clusterBootstrap([1, 2], () => null, { reps: 100, seed: 1 })).toMatchObject({ value: null, low: null });
  });
  it("keeps the interval inside the range of the items for a mean", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 15 }), fc.nat(), (xs, seed) => {
        const r = clusterBootstrap(xs, mean, { reps: 50, seed });
        return r.low! >= Math.min(...xs) - 1e-12 && r.high! <= Math.max(...xs) + 1e-12 && r.low! <= r.high!;
      }),
      { numRuns: 50 },
    );
  });
});

describe("ratio bootstrap", () => {
  const sumRatio = (sample: readonly { num: number; den: number }[]) => {
    const den = sample.reduce((s, it) => s + it.den, 0);
    return den === 0 ? null : sample.reduce((s, it) => s + it.num, 0) / den;
  };
  const countItems = fc.array(
    fc
      .record({ den: fc.nat({ max: 12 }), share: fc.double({ min: 0, max: 1, noNaN: true }), cluster: fc.constantFrom("a", "b", "c", "d", "e") })
      .map(({ den, share, cluster }) => ({ num: Math.round(share * den), den, cluster })),
    { minLength: 0, maxLength: 14 },
  );
  it("equals the cluster bootstrap of Σ num / Σ den, draw for draw, clustered or not", () => {
    fc.assert(
      fc.property(countItems, fc.nat(), fc.boolean(), (items, seed, clustered) => {
        const options = { reps: 40, seed, stream: "s", ...(clustered ? { clusterOf: (it: { cluster: string }) => it.cluster } : {}) };
        expect(ratioBootstrap(items, options)).toEqual(clusterBootstrap(items, sumRatio, options));
      }),
      { numRuns: 200 },
    );
  });
  it("has no value without units, and no interval for one cluster", () => {
    expect(
      ratioBootstrap(
        [
          { num: 0, den: 0 },
          { num: 0, den: 0 },
        ],
        { reps: 10, seed: 1 },
      ),
    ).toMatchObject({ value: null, low: null, high: null });
    expect(
      ratioBootstrap(
        [
          { num: 1, den: 4 },
          { num: 2, den: 4 },
        ],
        { reps: 10, seed: 1, clusterOf: () => "one" },
      ),
    ).toMatchObject({ value: 0.375, low: null, high: null, validReps: 0 });
  });
});

describe("excess disagreement permutation test", () => {
  it("finds no excess when both runs are the same", () => {
    const items = [
      { a: [3, 2], b: [3, 2] },
      { a: [5, 0], b: [5, 0] },
      { a: [4, 1], b: [4, 1] },
    ];
    const r = excessDisagreementTest(items, { reps: 300, seed: 3 });
    // Q^AB = 1 − (.6² + .4²) = .48, Q = .6: E = −.12; for 4/1: .32 − .4 = −.08; for 5/0: 0.
    expect(r.statistic).toBeCloseTo((-0.12 + 0 - 0.08) / 3, 12);
    expect(r.p!).toBeGreaterThan(0.5);
  });
  it("detects verdicts that flip between runs, with p = (1 + #)/(1 + R)", () => {
    const items = Array.from({ length: 8 }, () => ({ a: [5, 0], b: [0, 5] }));
    const r = excessDisagreementTest(items, { reps: 999, seed: 3 });
    expect(r.statistic).toBe(1);
    expect(r.p).toBeLessThan(0.01);
    expect((r.p! * 1000) % 1).toBeCloseTo(0, 9);
    expect(excessDisagreementTest(items, { reps: 999, seed: 3 })).toEqual(r);
  });
  it("skips items with fewer than two trials in a run", () => {
    expect(excessDisagreementTest([{ a: [1, 0], b: [2, 0] }], { reps: 10, seed: 0 })).toMatchObject({ statistic: null, p: null, nItems: 0 });
  });
});

describe("paired swap permutation test", () => {
  const mean = (units: readonly { a: readonly number[]; b: readonly number[] }[]) => units.reduce((s, u) => s + u.a[0]! - u.b[0]!, 0) / units.length;
  it("known answer: with every unit one way the exact p over all 2^G swaps is 1/2^G, reached by the sampled p", () => {
    // 4 clusters all +1: only the identity (and no other swap) reaches a mean ≥ 1, P = 1/16.
    const units = ["a", "b", "c", "d"].map((cluster) => ({ a: [1], b: [0], cluster }));
    const r = pairedSwapTest(units, mean, { reps: 20_000, seed: 3 });
    expect(r.statistic).toBe(1);
    expect(r.p!).toBeCloseTo(1 / 16, 2);
  });
  it("swaps whole clusters: two units of one cluster move together", () => {
    const units = [
      { a: [1], b: [0], cluster: "g" },
      { a: [1], b: [0], cluster: "g" },
    ];
    // One cluster: the observed mean 1 or its swap −1, each with probability ½.
    expect(pairedSwapTest(units, mean, { reps: 20_000, seed: 4 }).p!).toBeCloseTo(0.5, 1);
  });
  it("holds its level under the null over many seeds", () => {
    const rng = createRng(9, "swap-null");
    let rejections = 0;
    for (let s = 0; s < 200; s++) {
      const units = Array.from({ length: 30 }, (_, i) => ({ a: [rng()], b: [rng()], cluster: String(i) }));
      if (pairedSwapTest(units, mean, { reps: 200, seed: s }).p! <= 0.05) rejections++;
    }
    // 200 tests at 0.05: 10 expected; the binomial 99.9% range is about 2 to 22.
    expect(rejections).toBeGreaterThan(1);
    expect(rejections).toBeLessThan(23);
  });
});
