import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { clopperPearson, differenceInterval, exactLowerBound, exactUpperBound, jeffreys, wilson } from "../../src/stats/proportion.ts";

// Golden vectors: methodology-notes §13 and the §2 table.
describe("binomial intervals", () => {
  it("Wilson 3/20", () => {
    const { low, high } = wilson(3, 20);
    expect(low).toBeCloseTo(0.052369, 6);
    expect(high).toBeCloseTo(0.360419, 6);
  });
  it("Clopper–Pearson 3/20 and 0/30", () => {
    expect(clopperPearson(3, 20).low).toBeCloseTo(0.032071, 6);
    expect(clopperPearson(3, 20).high).toBeCloseTo(0.378927, 6);
    expect(clopperPearson(0, 30)).toEqual({ low: 0, high: expect.closeTo(0.115703, 6) });
  });
  it("Jeffreys 3/20", () => {
    expect(jeffreys(3, 20).low).toBeCloseTo(0.044131, 6);
    expect(jeffreys(3, 20).high).toBeCloseTo(0.348578, 6);
  });
  it("the N = 5 table of §2", () => {
    expect(wilson(0, 5).high).toBeCloseTo(0.434, 3);
    expect(wilson(1, 5).low).toBeCloseTo(0.036, 3);
    expect(wilson(1, 5).high).toBeCloseTo(0.624, 3);
    expect(clopperPearson(1, 5).high).toBeCloseTo(0.716, 3);
    expect(wilson(5, 5)).toEqual({ low: expect.closeTo(0.566, 3), high: 1 });
    expect(clopperPearson(5, 5).low).toBeCloseTo(0.478, 3);
  });
  it("every interval lies in [0, 1] and contains k/n", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, f) => {
        const k = Math.round(f * n);
        for (const ci of [wilson(k, n), clopperPearson(k, n), jeffreys(k, n)]) {
          if (!(ci.low >= 0 && ci.high <= 1 && ci.low <= k / n + 1e-12 && k / n <= ci.high + 1e-12)) return false;
        }
        return true;
      }),
    );
  });
  it("rejects impossible counts", () => {
    expect(() => wilson(3, 2)).toThrow(RangeError);
    expect(() => clopperPearson(0, 0)).toThrow(RangeError);
  });
});

describe("one-sided exact bounds", () => {
  it("zero events: 1 − (1 − conf)^(1/n), e.g. 0 of 370 trials → 0.008064 (docs/design.md §10)", () => {
    expect(exactUpperBound(0, 370)).toBeCloseTo(0.008064, 6);
    expect(exactUpperBound(0, 370)).toBeCloseTo(1 - 0.05 ** (1 / 370), 12);
    expect(exactUpperBound(0, 30, 0.975)).toBeCloseTo(clopperPearson(0, 30).high, 12);
  });
  it("3 of 20 (scipy 1.17 beta quantiles)", () => {
    expect(exactUpperBound(3, 20)).toBeCloseTo(0.343664, 6);
    expect(exactLowerBound(3, 20)).toBeCloseTo(0.042169, 6);
  });
  it("all events mirror zero events", () => {
    expect(exactUpperBound(20, 20)).toBe(1);
    expect(exactLowerBound(20, 20)).toBeCloseTo(1 - exactUpperBound(0, 20), 12);
    expect(exactLowerBound(0, 20)).toBe(0);
  });
});

describe("differenceInterval (MOVER)", () => {
  it("reproduces Newcombe's (1998) method 10 for 56/70 − 48/80: 0.2 [0.0524, 0.3339]", () => {
    const d = differenceInterval(56 / 70, wilson(56, 70), 48 / 80, wilson(48, 80));
    expect(d.low).toBeCloseTo(0.0524, 3);
    expect(d.high).toBeCloseTo(0.3339, 3);
  });
  it("keeps an edge's one-sided bound: 0 events against 0 events spans both runs' upper bounds, never [0, 0]", () => {
    const d = differenceInterval(0, { low: 0, high: 0.008 }, 0, { low: 0, high: 0.001 });
    expect(d).toEqual({ low: -0.001, high: 0.008 });
  });
});
