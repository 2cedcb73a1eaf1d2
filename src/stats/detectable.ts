import { logChoose } from "./distributions.ts";
import { hypergeometricTails } from "./exact.ts";

/**
 * A one-sided Fisher test of a rate's counts, as the drift charts judge a rate over trials or
 * items (harness/baseline/trend.ts): the events of `runs` runs of `runUnits` units each, pooled,
 * against those of the reference's `referenceUnits` units, alarming when the harmful tail
 * (`hypergeometricTails`: P(X ≥ x) for a rise, P(X ≤ x) for a fall) is at most `level`.
 */
export interface CountTestDesign {
  /** The reference's rate: its events over its units. */
  p0: number;
  /** Units (trials or items) summed over the reference's runs. */
  referenceUnits: number;
  /** One run's units. */
  runUnits: number;
  /** Runs pooled on the run side: 1 for the shift chart, 2 up to `sustain` for the sustained chart. */
  runs: number;
  /** The one-sided level the harmful tail is compared with. */
  level: number;
  /** The harmful side: a rise of the rate (lower is better) or a fall (higher is better). */
  direction: "up" | "down";
}

/**
 * Reference counts less likely than this are left out of the power's sum: together they weigh at
 * most (units + 1) times it, far below the bisection's tolerance.
 */
const NEGLIGIBLE = 1e-13;
/** The shift is bisected to this width (a rate difference). */
const TOLERANCE = 1e-6;

/** Binomial(n, p)'s probabilities, in log space so large n keep their precision. */
function binomialPmf(n: number, p: number): number[] {
  if (p <= 0 || p >= 1) return Array.from({ length: n + 1 }, (_, i) => (i === (p <= 0 ? 0 : n) ? 1 : 0));
  const [lp, lq] = [Math.log(p), Math.log1p(-p)];
  return Array.from({ length: n + 1 }, (_, i) => Math.exp(logChoose(n, i) + i * lp + (n - i) * lq));
}

function checkDesign(d: CountTestDesign): void {
  const whole = (n: number) => Number.isInteger(n) && n >= 1;
  if (!(d.p0 >= 0 && d.p0 <= 1 && whole(d.referenceUnits) && whole(d.runUnits) && whole(d.runs) && d.level > 0 && d.level < 1))
    throw new RangeError(`count test design out of range: ${JSON.stringify(d)}`);
}

/**
 * The power of the design's test against a harmful shift Δ ≥ 0 (the run's rate p0 + Δ for a rise,
 * p0 − Δ for a fall), exactly: the run side's harmful count X ~ Binomial(runs · runUnits, its
 * rate), the reference's Y ~ Binomial(referenceUnits, p0), and power = Σ_y P(Y = y) P(X ≥ c(y)),
 * c(y) the fewest harmful events that alarm against y. The harmful count is the events for a rise
 * and the non-events for a fall, so both read "more is worse", while each table is judged by the
 * trend's own tail. The one-sided Fisher p falls as the run's harmful count grows and rises with
 * the reference's (a property test pins both), so c(y) is found once per design by one bisection
 * and a forward scan; each shift then costs one binomial law.
 */
export function countTestPower(d: CountTestDesign): (shift: number) => number {
  checkDesign(d);
  const n = d.runs * d.runUnits;
  const U = d.referenceUnits;
  const r0 = d.direction === "up" ? d.p0 : 1 - d.p0;
  const alarms = (x: number, y: number) =>
    d.direction === "up" ? hypergeometricTails(x, n, y, U).upper <= d.level : hypergeometricTails(n - x, n, U - y, U).lower <= d.level;
  const pY = binomialPmf(U, r0);
  const ys = pY.flatMap((p, y) => (p > NEGLIGIBLE ? [y] : []));
  const critical: number[] = [];
  for (const y of ys) {
    let x = critical.at(-1);
    if (x === undefined) {
      // The first reference count: bisect for the fewest events that alarm (n + 1: none does).
      let [lo, hi] = [0, n + 1];
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        if (alarms(mid, y)) hi = mid;
        else lo = mid + 1;
      }
      x = lo;
    }
    while (x <= n && !alarms(x, y)) x++;
    critical.push(x);
  }
  return (shift) => {
    const pX = binomialPmf(n, Math.min(1, Math.max(0, r0 + shift)));
    // atLeast[x] = P(X ≥ x), summed from the top so small tails keep their precision.
    const atLeast = new Array<number>(n + 2).fill(0);
    for (let x = n; x >= 0; x--) atLeast[x] = atLeast[x + 1]! + pX[x]!;
    return Math.min(
      1,
      ys.reduce((sum, y, i) => sum + pY[y]! * atLeast[critical[i]!]!, 0),
    );
  };
}

/**
 * The smallest harmful shift of the rate the design's test detects with each given power (0.5:
 * in half the cases; 0.95), by bisection on the exact power; null where even a rate of 1 (of 0,
 * for a fall) does not reach that power.
 */
export function detectableShifts(d: CountTestDesign, powers: readonly number[]): (number | null)[] {
  const power = countTestPower(d);
  const most = d.direction === "up" ? 1 - d.p0 : d.p0;
  const top = power(most);
  return powers.map((target) => {
    if (!(target > 0 && target < 1)) throw new RangeError(`power must be in (0, 1), got ${target}`);
    if (top < target) return null;
    let [lo, hi] = [0, most];
    while (hi - lo > TOLERANCE) {
      const mid = (lo + hi) / 2;
      if (power(mid) >= target) hi = mid;
      else lo = mid;
    }
    return hi;
  });
}
