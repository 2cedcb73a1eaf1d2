import { chiSquareUpperTail, normalQuantile, studentTCdf } from "./distributions.ts";

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
interface PredictionScore {
  /** The standardized difference: Student t with `df` degrees of freedom when the runs are in control. */
  T: number;
  df: number;
  /** Two-sided p of T. */
  p: number;
  /** The normal score Φ⁻¹(F_t(T)): N(0, 1) in control, whatever the df (a size comparable across tests). */
  z: number;
  /** The SD of one run's value the score assumed (a chart's band is the reference mean ± 3 of it). */
  sd: number;
}

function scoreOf(T: number, df: number, sd: number): PredictionScore {
  // Tails computed on the small side, so large |T| keeps its precision.
  const lower = studentTCdf(-Math.abs(T), df);
  const z = -normalQuantile(lower) * Math.sign(T);
  return { T, df, p: Math.min(1, 2 * lower), z, sd };
}

/**
 * The prediction statistic of the mean of j new runs against a reference of n earlier runs
 * (methodology-notes §5, §9.8): T = (x̄_j − x̄)/(s √(1/j + 1/n)), t with n − 1 df, and its normal
 * score (Quesenberry's Q statistic at j = 1). The reference's own uncertainty (a mean and an SD
 * estimated from few runs) is in the t distribution, so a small reference widens the limits
 * instead of raising false alarms. null when the reference has fewer than two runs or no spread.
 */
export function predictionScore(reference: RunningStats, x: number, j = 1): PredictionScore | null {
  const sd = sdOf(reference);
  if (sd === null || !(sd > 0)) return null;
  return scoreOf((x - reference.mean) / (sd * Math.sqrt(1 / j + 1 / reference.n)), reference.n - 1, sd);
}

/**
 * The shift of the mean of j runs against a reference of k runs on the same items, paired item by
 * item: `delta` and `se` are the paired difference and its clustered standard error over the
 * items (df = clusters − 1), so se² measures the sampling variance at fixed items, the reference's
 * (1/k) and the runs' (1/j) alike, on many df where k − 1 would be few. Runs can also vary from one
 * to the next beyond sampling (a live model's day-to-day drift): the reference runs' between-run
 * variance s² shows it, so the variance used is max(se², (1/j + 1/k) s²), each the same quantity
 * estimated two ways, the larger one kept (conservative when runs vary by sampling alone).
 * T = delta/√V, two-sided p on df. null without a variance.
 */
export function pairedShiftScore(delta: number, se: number, df: number, j: number, reference: RunningStats): PredictionScore | null {
  const sd = sdOf(reference);
  const factor = 1 / j + 1 / reference.n;
  const variance = Math.max(se * se, sd === null ? 0 : factor * sd * sd);
  if (!(variance > 0) || !(df >= 1)) return null;
  return scoreOf(delta / Math.sqrt(variance), df, Math.sqrt(variance / factor));
}

/**
 * The run-to-run variance of a mean over n items at fixed items, estimated from k runs cluster by
 * cluster: `sums[g][r]` is cluster g's sum of item values in run r (for a ratio, of its linearized
 * counts). Clusters are independent, so Var(mean) = Σ_g Var(S_g)/n², each Var(S_g) estimated by
 * its sample variance over the k runs: (k − 1) df per cluster where the metric's own between-run
 * variance has k − 1 in all. df by Satterthwaite: (Σ v_g)² / Σ (v_g²/(k − 1)). null below two runs
 * or without any variation.
 */
export function clusterRunVariance(sums: readonly (readonly number[])[], n: number): { variance: number; df: number } | null {
  const k = sums[0]?.length ?? 0;
  if (k < 2 || n < 1) return null;
  const v = sums.map((runs) => sdOf(statsOf(runs))! ** 2);
  const total = v.reduce((a, b) => a + b, 0);
  if (!(total > 0)) return null;
  return { variance: total / (n * n), df: (total * total) / v.reduce((a, x) => a + (x * x) / (k - 1), 0) };
}

/**
 * The shift Δ of the mean of j runs against the mean of a reference of k runs, paired over the
 * items, on two estimates of its variance: (1/j + 1/k) σ² with one run's σ² from the reference
 * runs (clusterRunVariance, on its df), and the paired SE² of the group's items against the
 * reference (on G − 1 df), which measures the same variance from the group's own items. Each gives
 * T = Δ/√V on its df; the test with the larger p is kept. Three reference runs alone misjudge a
 * metric whose items are mostly small with rare large values (evidence drift, unsupported
 * evidence): they often see no rare value in an item, so a run that has one reads as a shift
 * (3.7 % of in-control runs at 1 % in test/stats/drift.test.ts), while its own items show it. The
 * group's items alone are inflated by a shift that moves items unequally. The larger variance is
 * conservative in control. null without either.
 */
export function referenceShiftScore(
  delta: number,
  reference: { variance: number; df: number } | null,
  j: number,
  k: number,
  paired: { se: number; df: number } | null,
): PredictionScore | null {
  const onReference =
    reference && reference.variance > 0 && reference.df > 0
      ? scoreOf(delta / Math.sqrt((1 / j + 1 / k) * reference.variance), reference.df, Math.sqrt(reference.variance))
      : null;
  const onItems = paired && paired.se > 0 && paired.df >= 1 ? scoreOf(delta / paired.se, paired.df, paired.se / Math.sqrt(1 / j + 1 / k)) : null;
  if (onReference === null || onItems === null) return onReference ?? onItems;
  return onItems.p > onReference.p ? onItems : onReference;
}

/**
 * Whether runs' event counts vary more than sampling explains: Pearson's dispersion statistic
 * X² = Σ_r (k_r − u_r p̂)² / (u_r p̂ (1 − p̂)), p̂ = Σ k_r / Σ u_r, on runs − 1 df, p from χ². The units
 * of fixed items (trials, or items) vary at most binomially from run to run, so a small p shows a
 * between-run excess (a live model that varies from day to day), not items' unequal rates. null
 * below two runs with units, or when p̂ is 0 or 1 (nothing varies).
 */
export function countDispersion(counts: readonly { events: number; units: number }[]): { statistic: number; df: number; p: number } | null {
  const runs = counts.filter((c) => c.units > 0);
  const pooled = runs.reduce((s, c) => s + c.events, 0) / runs.reduce((s, c) => s + c.units, 0);
  if (runs.length < 2 || !(pooled > 0 && pooled < 1)) return null;
  const statistic = runs.reduce((s, c) => s + (c.events - c.units * pooled) ** 2 / (c.units * pooled * (1 - pooled)), 0);
  const df = runs.length - 1;
  return { statistic, df, p: chiSquareUpperTail(statistic, df) };
}

interface TrailingPoint extends PredictionScore {
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
