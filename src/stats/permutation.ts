import { crossDisagreement, pairwiseDisagreement } from "./agreement.ts";
import { createRng, pickIndex, type Rng } from "./random.ts";

/** One item's verdict counts in run A and run B, over the same category order. */
interface PairedCounts {
  a: readonly number[];
  b: readonly number[];
}

interface ExcessDisagreementResult {
  /** Ē = mean_i E_i, E_i = Q_i^AB − (Q_i^A + Q_i^B)/2; null with no usable item. */
  statistic: number | null;
  /** (1 + #{Ē* ≥ Ē}) / (1 + R); null when the statistic is. */
  p: number | null;
  /** Items with at least two trials in each run (Q_i is undefined below two). */
  nItems: number;
  reps: number;
  seed: number;
}

function itemExcess(a: readonly number[], b: readonly number[]): number {
  return (crossDisagreement(a, b) as number) - ((pairwiseDisagreement(a) as number) + (pairwiseDisagreement(b) as number)) / 2;
}

/** Re-split one item's pooled trials at random into groups of the original sizes. */
function resplit(rng: Rng, pooled: number[], sizeA: number, categories: number): [number[], number[]] {
  const labels = pooled.slice();
  const a = new Array<number>(categories).fill(0);
  // Partial Fisher–Yates: the first sizeA positions become run A.
  for (let i = 0; i < sizeA; i++) {
    const j = i + pickIndex(rng, labels.length - i);
    [labels[i], labels[j]] = [labels[j]!, labels[i]!];
    a[labels[i]!]! += 1;
  }
  const b = new Array<number>(categories).fill(0);
  for (let i = sizeA; i < labels.length; i++) b[labels[i]!]! += 1;
  return [a, b];
}

/**
 * Excess disagreement between two runs on the same items (methodology §9.9): does swapping the
 * model (or time) move verdicts more than re-running the same one does? Under "A and B behave
 * identically" the trials of an item are exchangeable across runs, so the null distribution comes
 * from re-splitting each item's pooled trials, R times, with a seeded PRNG.
 */
export function excessDisagreementTest(items: readonly PairedCounts[], opts: { reps: number; seed: number }): ExcessDisagreementResult {
  const total = (c: readonly number[]) => c.reduce((s, n) => s + n, 0);
  const usable = items.filter((it) => total(it.a) >= 2 && total(it.b) >= 2);
  const base = { nItems: usable.length, reps: opts.reps, seed: opts.seed };
  if (usable.length === 0) return { ...base, statistic: null, p: null };
  const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;
  const statistic = mean(usable.map((it) => itemExcess(it.a, it.b)));
  const pooled = usable.map((it) => it.a.flatMap((n, c) => new Array<number>(n + (it.b[c] ?? 0)).fill(c)));
  const rng = createRng(opts.seed, "excess-disagreement");
  let extreme = 0;
  for (let r = 0; r < opts.reps; r++) {
    const permuted = usable.map((it, i) => {
      const [a, b] = resplit(rng, pooled[i]!, total(it.a), it.a.length);
      return itemExcess(a, b);
    });
    // Tolerance so that a re-split equal to the observed one counts as "as extreme".
    if (mean(permuted) >= statistic - 1e-12) extreme += 1;
  }
  return { ...base, statistic, p: (1 + extreme) / (1 + opts.reps) };
}

/** One unit of a paired comparison: its vector in run A and in run B, and its cluster (a fixture group). */
export interface PairedVectors {
  a: readonly number[];
  b: readonly number[];
  cluster: string;
}

/**
 * A permutation test of "A and B are exchangeable" for any statistic of the paired units: under
 * that null, swapping A and B within a cluster (all its units at once) leaves the joint
 * distribution unchanged, so the null distribution comes from R random swaps, each cluster swapped
 * with probability ½ (seeded). p = (1 + #{S* ≥ S})/(1 + R). null when the statistic is.
 */
export function pairedSwapTest(
  units: readonly PairedVectors[],
  statistic: (units: readonly PairedVectors[]) => number | null,
  opts: { reps: number; seed: number },
): { statistic: number | null; p: number | null } {
  const observed = statistic(units);
  if (observed === null) return { statistic: null, p: null };
  const clusters = [...new Set(units.map((u) => u.cluster))];
  const rng = createRng(opts.seed, "paired-swap");
  let extreme = 0;
  for (let r = 0; r < opts.reps; r++) {
    const swapped = new Set(clusters.filter(() => rng() < 0.5));
    const s = statistic(units.map((u) => (swapped.has(u.cluster) ? { a: u.b, b: u.a, cluster: u.cluster } : u)));
    // Tolerance so that a swap equal to the observed one counts as "as extreme".
    if (s !== null && s >= observed - 1e-12) extreme += 1;
  }
  return { statistic: observed, p: (1 + extreme) / (1 + opts.reps) };
}
