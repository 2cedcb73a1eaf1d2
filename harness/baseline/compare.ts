import { mcnemar } from "../../src/stats/paired.ts";
import { pairedDelta } from "../../src/stats/paired.ts";
import { excessDisagreementTest } from "../../src/stats/permutation.ts";
import { causesForItem, configDifferences, coverage, type Coverage, type Difference } from "./compat.ts";
import { itemKey, type Snapshot, type SnapshotItem } from "./schema.ts";
import { VERDICT_CATEGORIES } from "../../src/metrics/trial-facts.ts";

export interface SuiteComparison {
  suite: string;
  /** Items in both runs with the same content hash and a modal verdict in each. */
  n_items: number;
  /** Modal verdict transitions `B verdict → A verdict`, with counts (including unchanged). */
  transitions: Record<string, number>;
  /** McNemar on item-level "blocks" (modal verdict block / escalated): b = A only, c = B only. */
  mcnemar: { b: number; c: number; p: number; method: "exact" | "chi_square" };
  /** Excess disagreement Ē beyond within-run disagreement, with the within-item permutation p. */
  excess_disagreement: { statistic: number | null; p: number | null; n_items: number; reps: number; seed: number };
  /** Items whose modal verdict changed, with the recorded differences in scope for each (DESIGN.md §11 attribution). */
  changed_items: { item: string; a: Record<string, number>; b: Record<string, number>; causes: string[] }[];
}

export interface MetricComparison {
  metric: string;
  a: number | null;
  b: number | null;
  /** Paired per-item Δ = mean(a_i − b_i) with its 95% t-interval; null below one shared item. */
  delta: number | null;
  ci_low: number | null;
  ci_high: number | null;
  n_items: number;
}

export interface Comparison {
  a: { name: string; run_id: string | null };
  b: { name: string; run_id: string | null };
  coverage: Coverage;
  /** Every recorded configuration difference, B → A: the causes a change between the runs can be attributed to. */
  differences: Difference[];
  suites: SuiteComparison[];
  metrics: MetricComparison[];
}

function pairs(a: Snapshot, b: Snapshot): [SnapshotItem, SnapshotItem][] {
  const bItems = new Map(b.items.map((i) => [itemKey(i), i]));
  const out: [SnapshotItem, SnapshotItem][] = [];
  for (const ai of a.items) {
    const bi = bItems.get(itemKey(ai));
    if (bi && bi.item_hash === ai.item_hash) out.push([ai, bi]);
  }
  return out;
}

function compareSuite(suite: string, items: [SnapshotItem, SnapshotItem][], differences: Difference[], reps: number, seed: number): SuiteComparison {
  const scheme = items[0]?.[0].scheme ?? "critic";
  const labels = VERDICT_CATEGORIES[scheme];
  const blocking = labels[0];
  const transitions: Record<string, number> = {};
  let b = 0;
  let c = 0;
  let n = 0;
  const changed: SuiteComparison["changed_items"] = [];
  for (const [ai, bi] of items) {
    const ma = ai.modal_verdict;
    const mb = bi.modal_verdict;
    if (ma === null || mb === null) continue;
    n++;
    const t = `${mb} → ${ma}`;
    transitions[t] = (transitions[t] ?? 0) + 1;
    if (ma !== mb) changed.push({ item: itemKey(ai), a: ai.verdict_counts, b: bi.verdict_counts, causes: causesForItem(differences, ai.suite, bi.item_hash, ai.item_hash).map((d) => d.part) });
    const blocksA = ma === blocking;
    const blocksB = mb === blocking;
    if (blocksA && !blocksB) b++;
    if (blocksB && !blocksA) c++;
  }
  const vector = (counts: Record<string, number>) => labels.map((l) => counts[l] ?? 0);
  const excess = excessDisagreementTest(
    items.map(([ai, bi]) => ({ a: vector(ai.verdict_counts), b: vector(bi.verdict_counts) })),
    { reps, seed },
  );
  return {
    suite,
    n_items: n,
    transitions,
    mcnemar: { b, c, ...mcnemar(b, c) },
    excess_disagreement: { statistic: excess.statistic, p: excess.p, n_items: excess.nItems, reps, seed },
    changed_items: changed,
  };
}

function compareMetric(metric: string, a: Snapshot, b: Snapshot, items: [SnapshotItem, SnapshotItem][]): MetricComparison {
  const va: number[] = [];
  const vb: number[] = [];
  for (const [ai, bi] of items) {
    const x = ai.values[metric];
    const y = bi.values[metric];
    if (x === null || x === undefined || y === null || y === undefined) continue;
    va.push(x);
    vb.push(y);
  }
  const d = va.length ? pairedDelta(va, vb) : null;
  return {
    metric,
    a: a.metrics[metric]?.value ?? null,
    b: b.metrics[metric]?.value ?? null,
    delta: d?.mean ?? null,
    ci_low: d?.low ?? null,
    ci_high: d?.high ?? null,
    n_items: d?.n ?? 0,
  };
}

/**
 * Model-swap comparison of run A against run B on the same items (methodology-notes §3, §9.9):
 * per suite, the modal-verdict transition table, McNemar on item-level blocking, and excess
 * disagreement with its within-item permutation test; per metric, the paired per-item delta with
 * its t-interval. Items whose content hash differs are not paired.
 */
export function compareSnapshots(a: Snapshot, b: Snapshot, opts: { reps?: number; seed?: number } = {}): Comparison {
  const { reps = 10_000, seed = 0 } = opts;
  const paired = pairs(a, b);
  const suites = [...new Set(paired.map(([ai]) => ai.suite))].sort();
  const metrics = [...new Set(paired.flatMap(([ai]) => Object.keys(ai.values)))].sort();
  const differences = configDifferences(b, a);
  return {
    a: { name: a.name, run_id: a.run_id },
    b: { name: b.name, run_id: b.run_id },
    coverage: coverage(b, a),
    differences,
    suites: suites.map((s) => compareSuite(s, paired.filter(([ai]) => ai.suite === s), differences, reps, seed)),
    metrics: metrics.map((m) => compareMetric(m, a, b, paired)),
  };
}
