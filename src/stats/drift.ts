import { normalQuantile, studentTCdf } from "./distributions.ts";

/** Running count, mean and sum of squared deviations (Welford), so a reference can grow run by run. */
export interface RunningStats {
  n: number;
  mean: number;
  /** Σ (x − mean)²; the sample variance is m2 / (n − 1). */
  m2: number;
}

export const EMPTY_STATS: RunningStats = { n: 0, mean: 0, m2: 0 };

export function addObservation(s: RunningStats, x: number): RunningStats {
  const n = s.n + 1;
  const delta = x - s.mean;
  const mean = s.mean + delta / n;
  return { n, mean, m2: s.m2 + delta * (x - mean) };
}

export function statsOf(values: readonly number[]): RunningStats {
  return values.reduce(addObservation, EMPTY_STATS);
}

export function sdOf(s: RunningStats): number | null {
  return s.n < 2 ? null : Math.sqrt(Math.max(0, s.m2) / (s.n - 1));
}

/** A new value judged against a reference sample of earlier in-control runs. */
export interface PredictionScore {
  /** (x − x̄)/(s √(1 + 1/n)): Student t with n − 1 df when the runs are normal and in control. */
  T: number;
  df: number;
  /** Two-sided p of T. */
  p: number;
  /** The normal score Φ⁻¹(F_t(T)): N(0, 1) in control, whatever n (a self-starting chart's input). */
  z: number;
}

/**
 * The prediction statistic of a new run against a reference of n earlier runs (methodology-notes
 * §5, §9.8): T = (x − x̄)/(s √(1 + 1/n)), t with n − 1 df, and its normal score (Quesenberry's Q
 * statistic; Hawkins' self-starting CUSUM runs on it). The reference's own uncertainty (a mean and
 * an SD estimated from few runs) is in the t distribution, so a small reference widens the limits
 * instead of raising false alarms. null when the reference has fewer than two runs or no spread.
 */
export function predictionScore(reference: RunningStats, x: number): PredictionScore | null {
  const sd = sdOf(reference);
  if (sd === null || !(sd > 0)) return null;
  const df = reference.n - 1;
  const T = (x - reference.mean) / (sd * Math.sqrt(1 + 1 / reference.n));
  // Tails computed on the small side, so large |T| keeps its precision.
  const lower = studentTCdf(-Math.abs(T), df);
  const z = -normalQuantile(lower) * Math.sign(T);
  return { T, df, p: Math.min(1, 2 * lower), z };
}

export interface ChartPoint {
  /** The chart statistic after this run. */
  value: number;
  /** The control limit it is compared with. */
  limit: number;
  alert: boolean;
}

/**
 * One step of a one-sided upper CUSUM (methodology §9.8): C_t = max(0, C_{t−1} + (m_t − μ0)/σ0 − k),
 * alert when C_t > h; start from C_0 = 0. On normal scores (μ0 = 0, σ0 = 1) it is a self-starting
 * CUSUM. k = 0.5 targets a 1σ shift. The caller carries the sum and does not reset it after an
 * alert, so a persisting shift keeps alerting. One step at a time because a self-starting chart's
 * next score depends on whether this run alarmed (an alarming run stays out of the reference).
 */
export function cusumStep(previous: number, m: number, opts: { mu0?: number; sigma0?: number; k?: number; h: number }): ChartPoint {
  const { mu0 = 0, sigma0 = 1, k = 0.5, h } = opts;
  if (!(sigma0 > 0)) throw new RangeError("cusum: sigma0 must be positive");
  const value = Math.max(0, previous + (m - mu0) / sigma0 - k);
  return { value, limit: h, alert: value > h };
}

/**
 * In-control average run length of a one-sided CUSUM on N(0, 1) scores (Siegmund's approximation):
 * ARL0 ≈ (e^{2kb} − 2kb − 1)/(2k²), b = h + 1.166. k = 0.5: h = 4 gives ≈ 338 runs, h = 5 ≈ 939
 * (the two-sided scheme, both sides at once, has half of each).
 */
export function cusumArl0(k: number, h: number): number {
  const b = h + 1.166;
  return (Math.exp(2 * k * b) - 2 * k * b - 1) / (2 * k * k);
}

/** The decision interval h whose one-sided in-control run length is `arl0` (inverse of cusumArl0). */
export function cusumLimit(k: number, arl0: number): number {
  if (!(arl0 > 1)) throw new RangeError("cusumLimit: arl0 must exceed 1");
  let lo = 0;
  let hi = 100;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (cusumArl0(k, mid) < arl0) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export interface TrailingPoint extends PredictionScore {
  /** False when W < 20: the trailing mean and SD are too noisy for the nominal false-alarm rate. */
  reliable: boolean;
}

/**
 * Trailing-window prediction statistic of §9.8 for each run that has W earlier runs with a value:
 * the run against the last W values before it (a run without a value is skipped, in the window and
 * as a point). null for a run without a value, one with fewer than W values before it, and one
 * whose window has no spread. A trailing window absorbs slow drift; use it to monitor, not to
 * gate. Its p-values are meant to be Holm-corrected across metrics per run.
 */
export function trailingWindowT(series: readonly (number | null)[], W: number): (TrailingPoint | null)[] {
  if (!(Number.isInteger(W) && W >= 2)) throw new RangeError("trailingWindowT: W must be an integer ≥ 2");
  const known: number[] = [];
  return series.map((x) => {
    if (x === null) return null;
    const score = known.length < W ? null : predictionScore(statsOf(known.slice(-W)), x);
    known.push(x);
    return score === null ? null : { ...score, reliable: W >= 20 };
  });
}
