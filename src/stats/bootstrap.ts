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
 * Percentile cluster bootstrap: resample whole items (clusters) with replacement, each drawn item
 * carrying all its trials, and take the α/2 and 1 − α/2 quantiles of the statistic. Seeded through
 * createRng(seed, "cluster-bootstrap", stream), so equal inputs give equal intervals. Sort the items
 * canonically before calling when the result must not depend on input order.
 */
export function clusterBootstrap<T>(
  items: readonly T[],
  statistic: (sample: readonly T[]) => number | null,
  options: BootstrapOptions,
): BootstrapResult {
  const { reps, seed, conf = 0.95, stream = "" } = options;
  const value = items.length === 0 ? null : statistic(items);
  const base = { value, reps, seed, stream };
  if (value === null || items.length < 2) return { ...base, low: null, high: null, validReps: 0 };
  const rng = createRng(seed, "cluster-bootstrap", stream);
  const replicates: number[] = [];
  const sample = new Array<T>(items.length);
  for (let r = 0; r < reps; r++) {
    for (let i = 0; i < items.length; i++) sample[i] = items[pickIndex(rng, items.length)]!;
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
