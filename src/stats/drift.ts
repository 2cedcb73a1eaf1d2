import { sampleSd } from "./mean.ts";
import { studentTQuantile } from "./distributions.ts";

export interface ChartPoint {
  /** The chart statistic after this sweep. */
  value: number;
  /** The control limit it is compared with. */
  limit: number;
  alert: boolean;
}

/**
 * EWMA chart on a standardized series z_t = (m_t − μ0)/σ0 (methodology §9.8):
 * E_t = λ z_t + (1 − λ) E_{t−1}, E_0 = 0; alert when |E_t| > L √(λ/(2 − λ) · (1 − (1 − λ)^{2t})).
 * λ = 0.2, L = 2.86 give an in-control average run length of about 370 sweeps.
 */
export function ewma(z: readonly number[], opts: { lambda?: number; L?: number } = {}): ChartPoint[] {
  const { lambda = 0.2, L = 2.86 } = opts;
  let e = 0;
  return z.map((zt, i) => {
    e = lambda * zt + (1 - lambda) * e;
    const limit = L * Math.sqrt((lambda / (2 - lambda)) * (1 - (1 - lambda) ** (2 * (i + 1))));
    return { value: e, limit, alert: Math.abs(e) > limit };
  });
}

/**
 * One-sided upper CUSUM against a fixed reference (the published baseline), for lower-is-better
 * metrics: C_t = max(0, C_{t−1} + (m_t − μ0)/σ0 − k), alert when C_t > h. k = 0.5 targets a 1σ
 * shift; h = 4.77 gives an in-control run length of about 370. The sum is not reset after an alert,
 * so a persisting shift keeps alerting.
 */
export function cusum(series: readonly number[], opts: { mu0: number; sigma0: number; k?: number; h?: number }): ChartPoint[] {
  const { mu0, sigma0, k = 0.5, h = 4.77 } = opts;
  if (!(sigma0 > 0)) throw new RangeError("cusum: sigma0 must be positive");
  let c = 0;
  return series.map((m) => {
    c = Math.max(0, c + (m - mu0) / sigma0 - k);
    return { value: c, limit: h, alert: c > h };
  });
}

export interface TrailingPoint {
  /** (m_t − m̄_W)/(s_W √(1 + 1/W)); null when the window has no spread. */
  T: number | null;
  /** t_{W−1, 1−α/2}: the prediction statistic is t with W − 1 df for a stable normal metric. */
  threshold: number;
  alert: boolean;
  /** False when W < 20: the trailing mean and SD are too noisy for the nominal false-alarm rate. */
  reliable: boolean;
}

/**
 * Trailing-window prediction statistic of §9.8 for each sweep that has W earlier sweeps (the
 * first W get null). A trailing window absorbs slow drift; use it to monitor, not to gate.
 */
export function trailingWindowT(series: readonly number[], W: number, opts: { alpha?: number } = {}): (TrailingPoint | null)[] {
  if (!(Number.isInteger(W) && W >= 2)) throw new RangeError("trailingWindowT: W must be an integer ≥ 2");
  const { alpha = 0.05 } = opts;
  const threshold = studentTQuantile(1 - alpha / 2, W - 1);
  return series.map((m, t) => {
    if (t < W) return null;
    const window = series.slice(t - W, t);
    const mean = window.reduce((s, v) => s + v, 0) / W;
    const sd = sampleSd(window);
    const diff = m - mean;
    const T = sd === 0 ? null : diff / (sd * Math.sqrt(1 + 1 / W));
    return { T, threshold, alert: T === null ? diff !== 0 : Math.abs(T) > threshold, reliable: W >= 20 };
  });
}
