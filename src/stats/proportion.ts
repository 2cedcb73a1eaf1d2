import { betaQuantile, normalQuantile } from "./distributions.ts";

/** A two-sided confidence interval. */
interface Interval {
  low: number;
  high: number;
}

function checkCounts(k: number, n: number, conf: number): void {
  if (!(Number.isInteger(k) && Number.isInteger(n) && n > 0 && k >= 0 && k <= n)) {
    throw new RangeError(`need integers 0 ≤ k ≤ n, n > 0; got k=${k}, n=${n}`);
  }
  if (!(conf > 0 && conf < 1)) throw new RangeError(`conf must be in (0, 1), got ${conf}`);
}

/** Wilson score interval for k successes of n independent units (the default for item counts). */
export function wilson(k: number, n: number, conf = 0.95): Interval {
  checkCounts(k, n, conf);
  const z = normalQuantile(1 - (1 - conf) / 2);
  const p = k / n;
  const z2n = (z * z) / n;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n))) / (1 + z2n);
  // At k = 0 or k = n the closed form can miss the bound by rounding; the bound is exact there.
  return { low: k === 0 ? 0 : Math.max(0, centre - half), high: k === n ? 1 : Math.min(1, centre + half) };
}

/** Clopper–Pearson exact interval: guaranteed coverage, for safety claims and floors. */
export function clopperPearson(k: number, n: number, conf = 0.95): Interval {
  checkCounts(k, n, conf);
  const alpha = 1 - conf;
  return {
    low: k === 0 ? 0 : betaQuantile(alpha / 2, k, n - k + 1),
    high: k === n ? 1 : betaQuantile(1 - alpha / 2, k + 1, n - k),
  };
}

/** Jeffreys interval (Beta(k+½, n−k+½) quantiles; lower bound 0 at k = 0, upper 1 at k = n). */
export function jeffreys(k: number, n: number, conf = 0.95): Interval {
  checkCounts(k, n, conf);
  const alpha = 1 - conf;
  return {
    low: k === 0 ? 0 : betaQuantile(alpha / 2, k + 0.5, n - k + 0.5),
    high: k === n ? 1 : betaQuantile(1 - alpha / 2, k + 0.5, n - k + 0.5),
  };
}

/**
 * One-sided exact (Clopper–Pearson) upper confidence bound at level `conf` for k events of n:
 * the p at which P(X ≤ k) = 1 − conf, i.e. the Beta(k + 1, n − k) quantile at conf; 1 at k = n.
 * At k = 0 it is 1 − (1 − conf)^(1/n), the rule of three (≈ 3/n at conf 0.95).
 */
export function exactUpperBound(k: number, n: number, conf = 0.95): number {
  checkCounts(k, n, conf);
  return k === n ? 1 : betaQuantile(conf, k + 1, n - k);
}

/** One-sided exact lower bound at level `conf` (the mirror of exactUpperBound); 0 at k = 0. */
export function exactLowerBound(k: number, n: number, conf = 0.95): number {
  checkCounts(k, n, conf);
  return k === 0 ? 0 : 1 - exactUpperBound(n - k, n, conf);
}

/**
 * MOVER (Zou & Donner 2008; Newcombe 1998, method 10 with Wilson limits): an interval for the
 * difference a − b of two independent estimates, recovered from each one's own interval, so an
 * estimate at an edge (0 events: [0, u]) keeps its asymmetric bound.
 *   low  = (a − b) − √((a − a.low)² + (b.high − b)²)
 *   high = (a − b) + √((a.high − a)² + (b − b.low)²)
 */
export function differenceInterval(a: number, ia: Interval, b: number, ib: Interval): Interval {
  const d = a - b;
  return { low: d - Math.hypot(a - ia.low, ib.high - b), high: d + Math.hypot(ia.high - a, b - ib.low) };
}
