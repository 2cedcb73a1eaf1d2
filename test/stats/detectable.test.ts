import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { countTestPower, detectableShifts, type CountTestDesign } from "../../src/stats/detectable.ts";
import { normalQuantile } from "../../src/stats/distributions.ts";
import { hypergeometricTails } from "../../src/stats/exact.ts";
import { clopperPearson } from "../../src/stats/proportion.ts";
import { chance, createRng } from "../../src/stats/random.ts";

/** The sim's critic_miss_rate: 0.134 over 155 trials a run, three reference runs, the headline level α/8 (METHODOLOGY §8). */
const SIM: CountTestDesign = { p0: 0.134, referenceUnits: 465, runUnits: 155, runs: 3, level: 0.005 / 8, direction: "up" };

/**
 * The normal approximation of the same test (two binomial rates): the shift Δ with
 * Δ = z_a √(p̄ q̄ (1/n + 1/U)) + z_power √(p1 q1/n + p0 q0/U), p̄ the pooled rate, solved by iteration.
 */
function normalShift(d: CountTestDesign, power: number): number {
  const n = d.runs * d.runUnits;
  const U = d.referenceUnits;
  const [za, zb] = [normalQuantile(1 - d.level), normalQuantile(power)];
  let delta = 0.05;
  for (let i = 0; i < 200; i++) {
    const p1 = d.p0 + delta;
    const pooled = (n * p1 + U * d.p0) / (n + U);
    delta = za * Math.sqrt(pooled * (1 - pooled) * (1 / n + 1 / U)) + zb * Math.sqrt((p1 * (1 - p1)) / n + (d.p0 * (1 - d.p0)) / U);
  }
  return delta;
}

/** The power summed over every table with the trend's own rule, no critical values: the check of the shortcut. */
function bruteForcePower(d: CountTestDesign, shift: number): number {
  const n = d.runs * d.runUnits;
  const U = d.referenceUnits;
  const p1 = Math.min(1, Math.max(0, d.direction === "up" ? d.p0 + shift : d.p0 - shift));
  const pmf = (k: number, m: number, p: number) => {
    let c = 1;
    for (let i = 0; i < k; i++) c = (c * (m - i)) / (i + 1);
    return c * p ** k * (1 - p) ** (m - k);
  };
  let power = 0;
  for (let x = 0; x <= n; x++)
    for (let y = 0; y <= U; y++) {
      const t = hypergeometricTails(x, n, y, U);
      if ((d.direction === "up" ? t.upper : t.lower) <= d.level) power += pmf(x, n, p1) * pmf(y, U, d.p0);
    }
  return power;
}

describe("the smallest harmful shift a count test detects (exact power of Fisher's one-sided test)", () => {
  it("the sim's doubled miss rate sits on the threshold: 3 runs against 3 catch 0.082 in half the cases and 0.128 in 95% (normal approximation 0.080, 0.125)", () => {
    const [half, most] = detectableShifts(SIM, [0.5, 0.95]);
    expect(normalShift(SIM, 0.5)).toBeCloseTo(0.0802, 3);
    expect(half).toBeGreaterThan(0.078);
    expect(half).toBeLessThan(0.086);
    expect(most).toBeGreaterThanOrEqual(0.125);
    expect(most).toBeLessThanOrEqual(0.13);
  });

  it("lies just above the normal approximation: by under 0.0035 for 3 runs, under 0.011 for 1; 3 or 8 reference runs, a rise or a fall", () => {
    const designs: CountTestDesign[] = [
      { ...SIM, runs: 1 },
      SIM,
      { ...SIM, p0: 0.125, referenceUnits: 1240 },
      { ...SIM, p0: 0.125, referenceUnits: 1240, runs: 1 },
      { ...SIM, p0: 0.4, runUnits: 300, referenceUnits: 900 },
    ];
    for (const d of designs) {
      const exact = detectableShifts(d, [0.5, 0.95]);
      [0.5, 0.95].forEach((power, i) => {
        const normal = normalShift(d, power);
        // Fisher's test is conditional and discrete, so a little more conservative than the normal test: never less.
        // Fisher's test is conditional and discrete, so a little more conservative than the normal test, never less; one run's
        // 155 trials leave more skew in the far tail (z 3.2) than the normal sees.
        expect(exact[i]! - normal, `${JSON.stringify(d)} at ${power}`).toBeGreaterThanOrEqual(0);
        expect(exact[i]! - normal, `${JSON.stringify(d)} at ${power}`).toBeLessThan(d.runs === 1 ? 0.011 : 0.0035);
      });
      // A fall of a rate is a rise of its complement: the same shifts.
      expect(detectableShifts({ ...d, p0: 1 - d.p0, direction: "down" }, [0.5, 0.95])).toEqual(exact.map((x) => expect.closeTo(x!, 5)));
    }
  });

  it("its power is the sum over every table judged by the trend's rule (small designs, both sides)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0.05, max: 0.6, noNaN: true }),
        fc.constantFrom(0.01, 0.05, 0.2),
        fc.constantFrom("up" as const, "down" as const),
        fc.double({ min: 0, max: 0.35, noNaN: true }),
        (runUnits, runs, referenceUnits, p0, level, direction, shift) => {
          const d: CountTestDesign = { p0, referenceUnits, runUnits, runs, level, direction };
          expect(countTestPower(d)(shift)).toBeCloseTo(bruteForcePower(d, shift), 9);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("rests on the one-sided Fisher p falling with the run's events and rising with the reference's", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 60 }), fc.nat(40), fc.nat(60), (u, U, a, b) => {
        const [x, y] = [a % u, b % U];
        const at = hypergeometricTails(x, u, y, U).upper;
        expect(hypergeometricTails(x + 1, u, y, U).upper).toBeLessThanOrEqual(at * (1 + 1e-12));
        expect(hypergeometricTails(x, u, y + 1, U).upper).toBeGreaterThanOrEqual(at * (1 - 1e-12));
      }),
    );
  });

  it("Monte Carlo: over 2,000 seeded draws of both counts at the returned shifts, the test alarms in half and in 95% of them", () => {
    const [half, most] = detectableShifts(SIM, [0.5, 0.95]);
    const n = SIM.runs * SIM.runUnits;
    const draw = (rng: () => number, m: number, p: number) => {
      let k = 0;
      for (let i = 0; i < m; i++) if (chance(rng, p)) k++;
      return k;
    };
    for (const [shift, power] of [
      [half!, 0.5],
      [most!, 0.95],
    ] as const) {
      const N = 2000;
      let alarms = 0;
      for (let i = 0; i < N; i++) {
        const rng = createRng("detectable", power, i);
        const x = draw(rng, n, SIM.p0 + shift);
        const y = draw(rng, SIM.referenceUnits, SIM.p0);
        if (hypergeometricTails(x, n, y, SIM.referenceUnits).upper <= SIM.level) alarms++;
      }
      const ci = clopperPearson(alarms, N, 0.999);
      expect(ci.low, `${alarms}/${N} at ${shift}`).toBeLessThanOrEqual(power);
      expect(ci.high, `${alarms}/${N} at ${shift}`).toBeGreaterThanOrEqual(power);
    }
  });

  it("grows with the shift, and shrinks with more runs pooled or a larger reference", () => {
    const power = countTestPower(SIM);
    const at = [0, 0.02, 0.05, 0.08, 0.12, 0.2].map(power);
    expect(at[0]).toBeLessThanOrEqual(SIM.level);
    at.slice(1).forEach((p, i) => expect(p).toBeGreaterThan(at[i]!));
    const half = (d: CountTestDesign) => detectableShifts(d, [0.5])[0]!;
    expect(half({ ...SIM, runs: 1 })).toBeGreaterThan(half(SIM));
    expect(half({ ...SIM, referenceUnits: 1240 })).toBeLessThan(half(SIM));
  });

  it("is null where no rate in [0, 1] reaches the power, and refuses a design out of range", () => {
    // One unit a run against two: a table can give P(X ≥ 1) no smaller than 1/3, never the level 0.01.
    expect(detectableShifts({ p0: 0.5, referenceUnits: 2, runUnits: 1, runs: 1, level: 0.01, direction: "up" }, [0.5, 0.95])).toEqual([null, null]);
    expect(() => countTestPower({ ...SIM, runUnits: 0 })).toThrow(RangeError);
    expect(() => countTestPower({ ...SIM, p0: 1.2 })).toThrow(RangeError);
    expect(() => detectableShifts(SIM, [1])).toThrow(RangeError);
  });
});
