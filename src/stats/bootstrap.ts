import { quantileSorted } from "simple-statistics";
import { createRng, pickIndex } from "./random.ts";

export interface BootstrapOptions {
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
  const { reps, seed, conf = 0.95, stream = "", clusterOf } = options;
  const value = items.length === 0 ? null : statistic(items);
  const base = { value, reps, seed, stream };
  const clusters = groupBy(items, clusterOf);
  if (value === null || clusters.length < 2) return { ...base, low: null, high: null, validReps: 0 };
  const rng = createRng(seed, "cluster-bootstrap", stream);
  const replicates: number[] = [];
  const sample: T[] = [];
  for (let r = 0; r < reps; r++) {
    sample.length = 0;
    for (let i = 0; i < clusters.length; i++) sample.push(...clusters[pickIndex(rng, clusters.length)]!);
    const v = statistic(sample);
    if (v !== null && Number.isFinite(v)) replicates.push(v);
  }
  if (replicates.length === 0) return { ...base, low: null, high: null, validReps: 0 };
  replicates.sort((x, y) => x - y);
  const alpha = 1 - conf;
  return {
    ...base,
    low: quantileSorted(replicates, alpha / 2),
    high: quantileSorted(replicates, 1 - alpha / 2),
    validReps: replicates.length,
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
