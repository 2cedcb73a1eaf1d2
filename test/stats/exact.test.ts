import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createRng } from "../../src/stats/random.ts";
import { binomialTails, binomialUpperTail, fisherExact, hypergeometricTails } from "../../src/stats/exact.ts";

// Known answers computed with scipy 1.17 (stats.fisher_exact, stats.binom.sf).
describe("Fisher's exact test, two-sided", () => {
  it("5/0 against 0/5 is the smallest p at N = 5: 2/252 = 0.0079365 (methodology-notes §9.9)", () => {
    expect(fisherExact(5, 0, 0, 5)).toBeCloseTo(0.0079365, 7);
  });
  it("a unanimous 5/0 against 2/3 is 1/6 (docs/design.md §11: p ≈ 0.17)", () => {
    expect(fisherExact(5, 0, 2, 3)).toBeCloseTo(1 / 6, 12);
  });
  it("4/1 against 1/4 is 0.206349", () => {
    expect(fisherExact(4, 1, 1, 4)).toBeCloseTo(0.206349, 6);
  });
  it("a pooled 25/0 baseline against 2/3 and 0/5: 0.002463 and 7.0172e-6", () => {
    expect(fisherExact(25, 0, 2, 3)).toBeCloseTo(0.0024630542, 9);
    expect(fisherExact(25, 0, 0, 5) / 7.017248e-6).toBeCloseTo(1, 5);
  });
  it("is 1 when a margin is empty, and symmetric in the two runs", () => {
    expect(fisherExact(0, 0, 3, 2)).toBe(1);
    expect(fisherExact(5, 0, 5, 0)).toBe(1);
    fc.assert(fc.property(fc.nat(8), fc.nat(8), fc.nat(8), fc.nat(8), (a, b, c, d) => Math.abs(fisherExact(a, b, c, d) - fisherExact(c, d, a, b)) < 1e-12));
  });
});

describe("binomial upper tail (the exact conditional test of a run's events against a reference's)", () => {
  it("no reference event: q^k, e.g. 2 events in 370 trials against 0 in 1,850 → (1/6)² = 1/36", () => {
    expect(binomialUpperTail(2, 2, 370 / 2220)).toBeCloseTo(1 / 36, 12);
    expect(binomialUpperTail(5, 5, 1 / 6)).toBeCloseTo(6 ** -5, 14);
  });
  it("P(X ≥ 3), X ~ Binomial(4, ½) = 0.3125; the edges are 1 and 0", () => {
    expect(binomialUpperTail(3, 4, 0.5)).toBeCloseTo(0.3125, 12);
    expect(binomialUpperTail(0, 4, 0.5)).toBe(1);
    expect(binomialUpperTail(5, 4, 0.5)).toBe(0);
  });
  it("keeps a far tail's precision: P(X ≥ 40), X ~ Binomial(40, 0.1) = 1e-40", () => {
    expect(binomialUpperTail(40, 40, 0.1) / 1e-40).toBeCloseTo(1, 8);
  });
});

describe("Fisher's exact test of two rates, one-sided tails (hypergeometric)", () => {
  it("known answers (scipy 1.17 stats.hypergeom): 30 of 50 against 35 of 150, and 40 of 155 against 60 of 465", () => {
    const t = hypergeometricTails(30, 50, 35, 150);
    expect(t.upper / 3.093496670745564e-6).toBeCloseTo(1, 9);
    expect(t.lower).toBeCloseTo(0.9999994130821542, 12);
    // The smallest tails these margins allow: all 50 units of the run with the event, or none.
    expect(t.minUpper / 4.569149979569311e-34).toBeCloseTo(1, 9);
    expect(t.minLower / 6.918795014577086e-11).toBeCloseTo(1, 9);
    const u = hypergeometricTails(40, 155, 60, 465);
    expect(u.upper / 0.00021087695753616432).toBeCloseTo(1, 9);
    expect(u.lower).toBeCloseTo(0.9999153393317346, 11);
  });
  it("agrees with the two-sided test's table, and with no event anywhere every tail is 1", () => {
    expect(hypergeometricTails(0, 155, 0, 465)).toEqual({ upper: 1, lower: 1, minUpper: 1, minLower: 1 });
    fc.assert(
      fc.property(fc.nat(10), fc.nat(10), fc.nat(10), fc.nat(10), (x, a, y, b) => {
        const t = hypergeometricTails(x, x + a, y, y + b);
        // The two tails overlap in P(X = x); each is at least the smallest its margins allow.
        return (
          t.upper + t.lower >= 1 - 1e-12 &&
          t.upper >= t.minUpper - 1e-15 &&
          t.lower >= t.minLower - 1e-15 &&
          fisherExact(x, a, y, b) >= Math.min(t.upper, t.lower) - 1e-12
        );
      }),
    );
  });
  it("holds its level over many seeds for fixed items with unequal rates, and is not blind", () => {
    // 30 items of 5 trials at rates 0.05 to 0.34 (fixed items): three reference runs and one run.
    const rng = createRng(3, "fisher-level");
    const rates = Array.from({ length: 30 }, (_, i) => 0.05 + 0.01 * i);
    const events = (shift: number) =>
      rates.reduce((k, p) => k + Array.from({ length: 5 }, () => (rng() < p + shift ? 1 : 0)).reduce<number>((a, b) => a + b, 0), 0);
    let nulls = 0;
    let shifted = 0;
    const H = 2000;
    for (let h = 0; h < H; h++) {
      const ref = events(0) + events(0) + events(0);
      if (hypergeometricTails(events(0), 150, ref, 450).upper <= 0.05) nulls++;
      if (hypergeometricTails(events(0.15), 150, ref, 450).upper <= 0.05) shifted++;
    }
    // 2,000 tests at 0.05 one-sided: binomial sampling would reject about 100; unequal rates vary less (conservative).
    expect(nulls / H).toBeLessThan(0.05);
    expect(nulls / H).toBeGreaterThan(0.01);
    expect(shifted / H).toBeGreaterThan(0.9);
  });
});

describe("Poisson count tails", () => {
  it("are binomialUpperTail's, with the smallest tails q^total and (1 − q)^total", () => {
    expect(binomialTails(2, 2, 1 / 6)).toMatchObject({
      upper: binomialUpperTail(2, 2, 1 / 6),
      lower: 1,
      minUpper: expect.closeTo(1 / 36, 15),
      minLower: expect.closeTo(25 / 36, 15),
    });
    expect(binomialTails(3, 4, 0.5).lower).toBeCloseTo(0.9375, 12);
  });
});
