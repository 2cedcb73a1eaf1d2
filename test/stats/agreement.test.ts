import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { crossDisagreement, fleissKappa, gwetAC1, krippendorffAlphaNominal, pairwiseDisagreement } from "../../src/stats/agreement.ts";

// methodology-notes §13: BBBBB, BBBBW, BBBWW, BWWPP, PPPPP, WWWWP as (B, W, P) counts.
const GOLDEN = [
  [5, 0, 0],
  [4, 1, 0],
  [3, 2, 0],
  [1, 2, 2],
  [0, 0, 5],
  [0, 4, 1],
];

describe("pairwise disagreement Q_i", () => {
  it("matches the golden vector", () => {
    const q = GOLDEN.map((c) => pairwiseDisagreement(c)!);
    [0, 0.4, 0.6, 0.8, 0, 0.4].forEach((v, i) => expect(q[i]).toBeCloseTo(v, 12));
    expect(q.reduce((s, v) => s + v, 0) / q.length).toBeCloseTo(0.366667, 6);
  });
  it("takes the §9.1 values at N = 5, and is undefined below two trials", () => {
    expect(pairwiseDisagreement([3, 1, 1])).toBeCloseTo(0.7, 12);
    expect(pairwiseDisagreement([1, 0])).toBeNull();
    expect(pairwiseDisagreement([0, 0])).toBeNull();
  });
  it("is in [0, 1] and invariant under category order", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(20), { minLength: 2, maxLength: 4 }), (counts) => {
        const q = pairwiseDisagreement(counts);
        if (q === null) return counts.reduce((s, n) => s + n, 0) < 2;
        return q >= -1e-12 && q <= 1 + 1e-12 && Math.abs(q - pairwiseDisagreement([...counts].reverse())!) < 1e-12;
      }),
    );
  });
});

describe("chance-corrected coefficients", () => {
  it("Fleiss κ, Krippendorff α nominal and Gwet AC1 match the golden vector", () => {
    expect(fleissKappa(GOLDEN)).toBeCloseTo(0.43686, 6);
    expect(krippendorffAlphaNominal(GOLDEN)).toBeCloseTo(0.455631, 6);
    expect(gwetAC1(GOLDEN, 3)).toBeCloseTo(0.456343, 6);
  });
  it("α is 1 by convention when every trial has the same label", () => {
    expect(
      krippendorffAlphaNominal([
        [5, 0],
        [3, 0],
      ]),
    ).toBe(1);
  });
  it("single-trial items are missing values: they do not change α", () => {
    expect(krippendorffAlphaNominal([...GOLDEN, [1, 0, 0]])).toBeCloseTo(krippendorffAlphaNominal(GOLDEN)!, 12);
    expect(krippendorffAlphaNominal([[1, 0]])).toBeNull();
  });
  it("are invariant under item order", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(6), fc.nat(6)), { minLength: 2, maxLength: 12 }), (rows) => {
        const reversed = [...rows].reverse();
        const same = (x: number | null, y: number | null) => (x === null ? y === null : Math.abs(x - y!) < 1e-9);
        return same(krippendorffAlphaNominal(rows), krippendorffAlphaNominal(reversed)) && same(gwetAC1(rows, 2), gwetAC1(reversed, 2));
      }),
    );
  });
});

describe("cross disagreement", () => {
  it("is the probability that a trial of A and a trial of B differ", () => {
    expect(crossDisagreement([5, 0], [0, 5])).toBe(1);
    expect(crossDisagreement([4, 1], [4, 1])).toBeCloseTo(1 - (0.8 * 0.8 + 0.2 * 0.2), 12);
    expect(crossDisagreement([0, 0], [1, 0])).toBeNull();
  });
});
