import { describe, expect, it } from "vitest";
import { cusum, ewma, trailingWindowT } from "../../src/stats/drift.ts";
import { studentTQuantile } from "../../src/stats/distributions.ts";

describe("EWMA", () => {
  it("follows E_t = λz_t + (1−λ)E_{t−1} with the time-varying limit", () => {
    const points = ewma([1, 1, 1]);
    expect(points.map((p) => p.value)).toEqual([0.2, expect.closeTo(0.36, 12), expect.closeTo(0.488, 12)]);
    expect(points[0]!.limit).toBeCloseTo(2.86 * Math.sqrt((0.2 / 1.8) * (1 - 0.8 ** 2)), 12);
    expect(points.every((p) => !p.alert)).toBe(true);
  });
  it("alerts on a persistent 2σ shift within a few sweeps", () => {
    const points = ewma([0, 0, 0, 2, 2, 2, 2, 2]);
    expect(points.findIndex((p) => p.alert)).toBeGreaterThan(3);
    expect(points.at(-1)!.alert).toBe(true);
  });
});

describe("CUSUM", () => {
  it("accumulates standardized excess over k against the fixed baseline", () => {
    const points = cusum([0.1, 0.3, 0.3, 0.3, 0.3, 0.3], { mu0: 0.1, sigma0: 0.1 });
    // steps: 0, then +1.5 each sweep: 1.5, 3, 4.5, 6 (> 4.77), 7.5
    expect(points.map((p) => p.value)).toEqual([0, 1.5, 3, 4.5, 6, 7.5].map((v) => expect.closeTo(v, 12)));
    expect(points.map((p) => p.alert)).toEqual([false, false, false, false, true, true]);
  });
  it("never goes below zero", () => {
    expect(cusum([0, 0, 0], { mu0: 1, sigma0: 1 }).map((p) => p.value)).toEqual([0, 0, 0]);
  });
});

describe("trailing-window T", () => {
  it("standardizes by the window SD inflated by √(1 + 1/W) and flags short windows", () => {
    const series = [1, 2, 3, 4, 10];
    const points = trailingWindowT(series, 4);
    expect(points.slice(0, 4)).toEqual([null, null, null, null]);
    const sd = Math.sqrt(5 / 3);
    expect(points[4]!.T).toBeCloseTo((10 - 2.5) / (sd * Math.sqrt(1.25)), 12);
    expect(points[4]!.threshold).toBeCloseTo(studentTQuantile(0.975, 3), 12);
    expect(points[4]!.alert).toBe(true);
    expect(points[4]!.reliable).toBe(false);
    expect(trailingWindowT(Array.from({ length: 21 }, (_, i) => i % 2), 20)[20]!.reliable).toBe(true);
  });
});
