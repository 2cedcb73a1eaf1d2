import { studentTQuantile } from "./distributions.ts";

/** A mean with its clustered standard error and t-interval; se and bounds are null below two values. */
export interface MeanInterval {
  mean: number;
  se: number | null;
  low: number | null;
  high: number | null;
  n: number;
}

/** Sample standard deviation (n − 1 denominator). */
export function sampleSd(values: readonly number[]): number {
  const n = values.length;
  const m = values.reduce((s, v) => s + v, 0) / n;
  return Math.sqrt(values.reduce((s, v) => s + (v - m) ** 2, 0) / (n - 1));
}

/**
 * t-interval for the mean of per-item values: mean ± t_{n−1, 1−α/2} · sd/√n. With one value per
 * item this is the clustered standard error of a per-trial rate (Miller; methodology §0, §10).
 * null for an empty list.
 */
export function meanInterval(values: readonly number[], conf = 0.95): MeanInterval | null {
  const n = values.length;
  if (n === 0) return null;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  if (n < 2) return { mean, se: null, low: null, high: null, n };
  const se = sampleSd(values) / Math.sqrt(n);
  const half = studentTQuantile(1 - (1 - conf) / 2, n - 1) * se;
  return { mean, se, low: mean - half, high: mean + half, n };
}
