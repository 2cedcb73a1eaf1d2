import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  betaQuantile,
  binomialCdf,
  chiSquareUpperTail,
  incompleteBeta,
  normalCdf,
  normalQuantile,
  studentTCdf,
  studentTQuantile,
} from "../../src/stats/distributions.ts";

// Reference values from scipy.stats (norm, t, beta, binom).
describe("normal", () => {
  it("matches known quantiles and CDF values", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 12);
    expect(normalQuantile(0.95)).toBeCloseTo(1.6448536269514722, 12);
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361340902404056, 9);
    expect(normalCdf(1.96)).toBeCloseTo(0.9750021048517795, 13);
    expect(normalCdf(-3)).toBeCloseTo(0.0013498980316300933, 15);
  });
  it("quantile inverts the CDF", () => {
    fc.assert(fc.property(fc.double({ min: 1e-6, max: 1 - 1e-6, noNaN: true }), (p) => Math.abs(normalCdf(normalQuantile(p)) - p) < 1e-12));
  });
});

describe("Student t", () => {
  it("matches known quantiles", () => {
    expect(studentTQuantile(0.975, 7)).toBeCloseTo(2.364624251592784, 10);
    expect(studentTQuantile(0.95, 39)).toBeCloseTo(1.6848751217112248, 10);
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.706204736174694, 8);
    expect(studentTQuantile(0.025, 7)).toBeCloseTo(-2.364624251592784, 10);
    expect(studentTCdf(0.8, 39)).toBeCloseTo(0.7857214904133529, 12);
  });
});

describe("beta and binomial", () => {
  it("matches known values", () => {
    expect(incompleteBeta(0.3, 2, 5)).toBeCloseTo(0.579825, 12);
    expect(betaQuantile(0.025, 4, 17)).toBeCloseTo(0.05733399705003277, 12);
    expect(binomialCdf(1, 8, 0.5)).toBeCloseTo(9 / 256, 14);
  });
  it("beta quantile inverts the incomplete beta", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.double({ min: 0.5, max: 50, noNaN: true }),
        fc.double({ min: 0.5, max: 50, noNaN: true }),
        (p, a, b) => Math.abs(incompleteBeta(betaQuantile(p, a, b), a, b) - p) < 1e-9,
      ),
    );
  });
});

describe("χ² upper tail", () => {
  it("matches scipy 1.17 stats.chi2.sf", () => {
    expect(chiSquareUpperTail(11.6, 7)).toBeCloseTo(0.11450438780489793, 12);
    expect(chiSquareUpperTail(3.2, 2)).toBeCloseTo(0.2018965179946554, 12);
    expect(chiSquareUpperTail(0.5, 1)).toBeCloseTo(0.47950012218695337, 12);
    expect(chiSquareUpperTail(40, 20)).toBeCloseTo(0.0049954123083075785, 12);
    // On 2 df the tail is e^(−x/2).
    fc.assert(fc.property(fc.double({ min: 0, max: 60, noNaN: true }), (x) => Math.abs(chiSquareUpperTail(x, 2) - Math.exp(-x / 2)) < 1e-12));
    expect(chiSquareUpperTail(0, 3)).toBe(1);
  });
});
