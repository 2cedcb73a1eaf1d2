import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { binomialUpperTail, fisherExact } from "../../src/stats/exact.ts";

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
