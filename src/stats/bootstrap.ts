import { quantileSorted } from "simple-statistics";
import { sampleSd } from "./mean.ts";
import { createRng, pickIndex } from "./random.ts";

interface BootstrapOptions {
  reps: number;
  seed: number;
  conf?: number;
  /** Separates the streams of different statistics computed from one run seed. */
  stream?: string;
}

export interface BootstrapResult {
  value: number | null;
  low: number | null;
  high: number | null;
  reps: number;
  /** Replicates whose statistic was defined (a resample can leave, e.g., a ratio with no denominator). */
  validReps: number;
  /** The replicates' SD: the bootstrap standard error of the statistic (null without two replicates). */
  se: number | null;
  seed: number;
  stream: string;
}

/**
 * Percentile cluster bootstrap: resample whole clusters with replacement (by default each item is
 * a cluster; with `clusterOf`, e.g. a fixture group, its twins are drawn together), each drawn item
 * carrying all its trials, and take the α/2 and 1 − α/2 quantiles of the statistic. Seeded through
 * createRng(seed, "cluster-bootstrap", stream), so equal inputs give equal intervals. Sort the items
 * canonically before calling when the result must not depend on input order. No interval below
 * two clusters.
 */
export function clusterBootstrap<T>(
  items: readonly T[],
  statistic: (sample: readonly T[]) => number | null,
  options: BootstrapOptions & { clusterOf?: (item: T) => string },
): BootstrapResult {
  const value = items.length === 0 ? null : statistic(items);
  const clusters = groupBy(items, options.clusterOf);
  const sample: T[] = [];
  return resample(value, clusters.length, options, (draw) => {
    sample.length = 0;
    for (const c of draw) sample.push(...clusters[c]!);
    return statistic(sample);
  });
}

/** Items whose statistic is a ratio of sums: counts of events (num) over counts of units (den). */
export interface CountRatioItem {
  num: number;
  den: number;
}

/**
 * clusterBootstrap of Σ num / Σ den (null when Σ den is 0), with each cluster's sums added up once
 * instead of once per replicate: the same draws and, the sums being counts (exact in floating
 * point), the same replicates and interval.
 */
export function ratioBootstrap<T extends CountRatioItem>(
  items: readonly T[],
  options: BootstrapOptions & { clusterOf?: (item: T) => string },
): BootstrapResult {
  const clusters = groupBy(items, options.clusterOf).map((group) => ({
    num: group.reduce((s, it) => s + it.num, 0),
    den: group.reduce((s, it) => s + it.den, 0),
  }));
  const ratio = (num: number, den: number) => (den === 0 ? null : num / den);
  const value =
    items.length === 0
      ? null
      : ratio(
          clusters.reduce((s, c) => s + c.num, 0),
          clusters.reduce((s, c) => s + c.den, 0),
        );
  return resample(value, clusters.length, options, (draw) => {
    let num = 0;
    let den = 0;
    for (const c of draw) {
      num += clusters[c]!.num;
      den += clusters[c]!.den;
    }
    return ratio(num, den);
  });
}

/**
 * The replicates and percentile interval of a statistic of `clusterCount` clusters: each replicate
 * draws clusterCount indices with replacement (in order, from the seeded stream) and evaluates
 * `replicate` on them.
 */
function resample(value: number | null, clusterCount: number, options: BootstrapOptions, replicate: (draw: Int32Array) => number | null): BootstrapResult {
  const { reps, seed, conf = 0.95, stream = "" } = options;
  const base = { value, reps, seed, stream };
  if (value === null || clusterCount < 2) return { ...base, low: null, high: null, validReps: 0, se: null };
  const rng = createRng(seed, "cluster-bootstrap", stream);
  const replicates: number[] = [];
  const draw = new Int32Array(clusterCount);
  for (let r = 0; r < reps; r++) {
    for (let i = 0; i < clusterCount; i++) draw[i] = pickIndex(rng, clusterCount);
    const v = replicate(draw);
    if (v !== null && Number.isFinite(v)) replicates.push(v);
  }
  if (replicates.length === 0) return { ...base, low: null, high: null, validReps: 0, se: null };
  replicates.sort((x, y) => x - y);
  const alpha = 1 - conf;
  return {
    ...base,
    low: quantileSorted(replicates, alpha / 2),
    high: quantileSorted(replicates, 1 - alpha / 2),
    validReps: replicates.length,
    se: replicates.length < 2 ? null : sampleSd(replicates),
  };
}

/** Items grouped by cluster, clusters in order of first appearance; each item alone without `clusterOf`. */
function groupBy<T>(items: readonly T[], clusterOf: ((item: T) => string) | undefined): T[][] {
  if (clusterOf === undefined) return items.map((it) => [it]);
  const groups = new Map<string, T[]>();
  for (const it of items) {
    const key = clusterOf(it);
    const g = groups.get(key) ?? [];
    g.push(it);
    groups.set(key, g);
  }
  return [...groups.values()];
}
