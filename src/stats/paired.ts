import { binomialCdf, normalCdf, normalQuantile, studentTCdf, studentTQuantile } from "./distributions.ts";
import { clusteredSe, meanInterval, type MeanInterval } from "./mean.ts";

/**
 * McNemar's exact test on the discordant items: b changed one way, c the other.
 * Two-sided p = min(1, 2 · P(X ≤ min(b, c))), X ~ Binomial(b + c, ½); p = 1 when b + c = 0.
 */
export function mcnemarExact(b: number, c: number): number {
  if (!(Number.isInteger(b) && Number.isInteger(c) && b >= 0 && c >= 0)) throw new RangeError("mcnemarExact: b, c must be counts");
  const n = b + c;
  if (n === 0) return 1;
  return Math.min(1, 2 * binomialCdf(Math.min(b, c), n, 0.5));
}

/** McNemar χ² with continuity correction, (|b − c| − 1)²/(b + c) on 1 df: for b + c > 25. */
export function mcnemarChiSquare(b: number, c: number): { statistic: number; p: number } {
  const n = b + c;
  if (n === 0) return { statistic: 0, p: 1 };
  const statistic = Math.max(0, Math.abs(b - c) - 1) ** 2 / n;
  return { statistic, p: 2 * (1 - normalCdf(Math.sqrt(statistic))) };
}

/** McNemar as the methodology prescribes: exact when b + c ≤ 25, χ² with correction above. */
export function mcnemar(b: number, c: number): { p: number; method: "exact" | "chi_square" } {
  return b + c <= 25 ? { p: mcnemarExact(b, c), method: "exact" } : { p: mcnemarChiSquare(b, c).p, method: "chi_square" };
}

/** A paired difference Δ̂ = mean_i (a_i − b_i) with its t-interval and one-sided p for Δ > 0. */
export interface PairedDelta extends MeanInterval {
  /** One-sided p-value for H1: Δ > 0 (a worse than b when lower is better); null below two pairs. */
  pGreater: number | null;
}

/**
 * Paired t on per-item values of two runs over the same items (Miller's paired difference), the
 * standard error clustered over `clusters` (twins and injection copies move together) with
 * G − 1 degrees of freedom.
 */
export function pairedDelta(a: readonly number[], b: readonly number[], conf = 0.95, clusters?: readonly string[]): PairedDelta | null {
  if (a.length !== b.length) throw new RangeError("pairedDelta: both runs need one value per shared item");
  const interval = meanInterval(
    a.map((v, i) => v - b[i]!),
    conf,
    clusters,
  );
  if (interval === null) return null;
  const { mean, se, clusters: g } = interval;
  const pGreater = se === null ? null : se === 0 ? (mean > 0 ? 0 : 1) : studentTCdf(-mean / se, g - 1);
  return { ...interval, pGreater };
}

/** Two-sided p of a t statistic mean/se on df degrees of freedom; null without an SE, 1 for a zero difference with no spread. */
export function twoSidedP(mean: number, se: number | null, df: number): number | null {
  if (se === null || !(df >= 1)) return null;
  if (!(se > 0)) return mean === 0 ? 1 : null;
  return Math.min(1, 2 * studentTCdf(-Math.abs(mean / se), df));
}

/** One item's counts behind a ratio in two runs: a events of aDen units in A, b of bDen in B. */
interface PairedRatioItem {
  aNum: number;
  aDen: number;
  bNum: number;
  bDen: number;
}

/**
 * The paired difference of two ratios of sums over the same items, Δ = Σ aNum/Σ aDen − Σ bNum/Σ bDen,
 * with its delta-method standard error clustered over `clusters`: each item's influence
 * ψ_i = (aNum_i − R_a aDen_i)/Σ aDen − (bNum_i − R_b bDen_i)/Σ bDen, summed per cluster,
 * SE = √(G/(G − 1) Σ_g ψ_g²), and the t-interval on G − 1 df. Items whose two denominators are 0
 * enter neither side. null when a side has no unit; se null below two clusters.
 */
export function pairedRatioDelta(items: readonly PairedRatioItem[], conf = 0.95, clusters?: readonly string[]): MeanInterval | null {
  const used = items.map((it, i) => ({ it, c: clusters?.[i] ?? String(i) })).filter(({ it }) => it.aDen + it.bDen > 0);
  const sum = (f: (it: PairedRatioItem) => number) => used.reduce((s, u) => s + f(u.it), 0);
  const [aDen, bDen] = [sum((it) => it.aDen), sum((it) => it.bDen)];
  if (aDen === 0 || bDen === 0) return null;
  const [ra, rb] = [sum((it) => it.aNum) / aDen, sum((it) => it.bNum) / bDen];
  const n = used.length;
  // ψ_i scaled by n: its mean is 0 and clusteredSe of n·ψ is exactly √(G/(G − 1) Σ_g ψ_g²).
  const scaled = used.map(({ it }) => n * ((it.aNum - ra * it.aDen) / aDen - (it.bNum - rb * it.bDen) / bDen));
  const { se, clusters: g } = clusteredSe(
    scaled,
    used.map((u) => u.c),
  );
  const mean = ra - rb;
  if (se === null) return { mean, se: null, low: null, high: null, n, clusters: g };
  const half = studentTQuantile(1 - (1 - conf) / 2, g - 1) * se;
  return { mean, se, low: mean - half, high: mean + half, n, clusters: g };
}

/** One item's events of k trials in run A and in run B. */
interface PairedCounts {
  aEvents: number;
  aTrials: number;
  bEvents: number;
  bTrials: number;
}

/**
 * The Mantel–Haenszel test of "each item has one event rate in A and B" over items as strata: under
 * it, given an item's events in both runs, A's are hypergeometric, E = m·nA/N and
 * V = m(N − m)·nA·nB/(N²(N − 1)) (m events in N trials). z = Σ (aEvents − E)/√Σ V, two-sided normal
 * p (no continuity correction). It reads every item's own binomial variance, where a paired t over
 * items estimates one from the spread of the items' differences. null when no item varies (Σ V = 0).
 */
export function mantelHaenszel(items: readonly PairedCounts[]): { z: number; p: number } | null {
  let diff = 0;
  let variance = 0;
  for (const it of items) {
    const n = it.aTrials + it.bTrials;
    const m = it.aEvents + it.bEvents;
    if (n < 2 || it.aTrials === 0 || it.bTrials === 0) continue;
    diff += it.aEvents - (m * it.aTrials) / n;
    variance += (m * (n - m) * it.aTrials * it.bTrials) / (n * n * (n - 1));
  }
  if (!(variance > 0)) return null;
  const z = diff / Math.sqrt(variance);
  return { z, p: Math.min(1, 2 * normalCdf(-Math.abs(z))) };
}

/**
 * Non-inferiority upper bound of §12 step 3 for a lower-is-better metric:
 * U = Δ̂ + t_{G−1, 1−α} · SE (G clusters); the metric passes when U ≤ margin. null below two clusters.
 */
export function nonInferiorityBound(delta: PairedDelta, alpha = 0.05): number | null {
  if (delta.se === null) return null;
  return delta.mean + studentTQuantile(1 - alpha, delta.clusters - 1) * delta.se;
}

/**
 * Items needed for a one-sided non-inferiority test (methodology §11):
 * n = (z_{1−α} + z_{1−β})² σ_d² / (margin − trueDelta)², rounded up.
 */
export function itemsForNonInferiority(opts: { sdDiff: number; margin: number; trueDelta?: number; alpha?: number; power?: number }): number {
  const { sdDiff, margin, trueDelta = 0, alpha = 0.05, power = 0.8 } = opts;
  const gap = margin - trueDelta;
  if (!(gap > 0)) throw new RangeError("itemsForNonInferiority: margin must exceed the true delta");
  const z = normalQuantile(1 - alpha) + normalQuantile(power);
  return Math.ceil((z * z * sdDiff * sdDiff) / (gap * gap));
}
