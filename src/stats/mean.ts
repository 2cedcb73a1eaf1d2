import { studentTQuantile } from "./distributions.ts";

/** A mean with its (clustered) standard error and t-interval; se and bounds are null below two clusters. */
export interface MeanInterval {
  mean: number;
  se: number | null;
  low: number | null;
  high: number | null;
  /** Values (items) that entered the mean. */
  n: number;
  /** Independent clusters the standard error is computed over (n when every item is its own cluster). */
  clusters: number;
}

/** Sample standard deviation (n − 1 denominator). */
export function sampleSd(values: readonly number[]): number {
  const n = values.length;
  const m = values.reduce((s, v) => s + v, 0) / n;
  return Math.sqrt(values.reduce((s, v) => s + (v - m) ** 2, 0) / (n - 1));
}

/**
 * Cluster-robust standard error of a mean of n values in G clusters (Miller's clustered SE with
 * the G/(G − 1) finite-cluster factor): SE = √(G/(G − 1) · Σ_g (Σ_{i∈g} (y_i − ȳ))²) / n. With
 * every value its own cluster this is exactly sd/√n. null below two clusters.
 */
export function clusteredSe(values: readonly number[], clusters?: readonly string[]): { se: number | null; clusters: number } {
  const n = values.length;
  if (clusters === undefined) return { se: n < 2 ? null : sampleSd(values) / Math.sqrt(n), clusters: n };
  if (clusters.length !== n) throw new RangeError("clusteredSe: one cluster label per value");
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const sums = new Map<string, number>();
  values.forEach((v, i) => sums.set(clusters[i]!, (sums.get(clusters[i]!) ?? 0) + v - mean));
  const g = sums.size;
  if (g < 2) return { se: null, clusters: g };
  const squares = [...sums.values()].reduce((s, d) => s + d * d, 0);
  return { se: Math.sqrt((g / (g - 1)) * squares) / n, clusters: g };
}

/**
 * t-interval for the mean of per-item values: mean ± t_{G−1, 1−α/2} · SE, with SE clustered over
 * `clusters` (one label per value; default: every item its own cluster, SE = sd/√n). With one value
 * per item this is the clustered standard error of a per-trial rate (Miller; methodology §0, §10);
 * with fixture groups as clusters, twins and injection copies count as one unit. null for an
 * empty list.
 */
export function meanInterval(values: readonly number[], conf = 0.95, clusters?: readonly string[]): MeanInterval | null {
  const n = values.length;
  if (n === 0) return null;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const { se, clusters: g } = clusteredSe(values, clusters);
  if (se === null) return { mean, se: null, low: null, high: null, n, clusters: g };
  const half = studentTQuantile(1 - (1 - conf) / 2, g - 1) * se;
  return { mean, se, low: mean - half, high: mean + half, n, clusters: g };
}
