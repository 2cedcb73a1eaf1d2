import { mcnemar } from "../../src/stats/paired.ts";
import { excessDisagreementTest } from "../../src/stats/permutation.ts";
import { coverage, type Coverage, type Difference } from "./compat.ts";
import { diffSnapshots } from "./diff.ts";
import { metricDelta } from "./gate.ts";
import { pairedItems } from "./paired.ts";
import { describeSnapshot, itemKey, type Snapshot, type SnapshotItem } from "./schema.ts";
import { VERDICT_CATEGORIES } from "../../src/metrics/trial-facts.ts";

export interface SuiteComparison {
  suite: string;
  /** Items in both runs with the same content hash and a modal verdict in each. */
  n_items: number;
  /** Modal verdict transitions `B verdict → A verdict`, with counts (including unchanged). */
  transitions: Record<string, number>;
  /** McNemar on item-level "blocks" (modal verdict block / escalated): b = A only, c = B only. */
  mcnemar: { b: number; c: number; p: number; method: "exact" | "chi_square" };
  /**
   * Excess disagreement Ē beyond within-run disagreement, with the within-item permutation p.
   * A run compared with itself has no pair of distinct trials across the two sides that is not a
   * within-run pair: Ē = 0 exactly, p = 1 (`same_run`).
   */
  excess_disagreement: { statistic: number | null; p: number | null; n_items: number; reps: number; seed: number; same_run: boolean };
  /**
   * Items whose modal verdict changed (or whose counts moved beyond noise), with the diff's per-item
   * test and the recorded causes in scope for each (DESIGN.md §11 attribution).
   */
  changed_items: { item: string; a: Record<string, number>; b: Record<string, number>; p: number; p_holm: number; beyond_noise: boolean; causes: string[] }[];
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
  a: { name: string; runs: string };
  b: { name: string; runs: string };
  /** Every recorded configuration difference of A against B (B → A), the seed included. */
  differences: Difference[];
  coverage: Coverage;
  suites: SuiteComparison[];
  metrics: MetricComparison[];
}

type ChangedItem = SuiteComparison["changed_items"][number];

function compareSuite(suite: string, items: [SnapshotItem, SnapshotItem][], changed: ChangedItem[], sameRun: boolean, reps: number, seed: number): SuiteComparison {
  const scheme = items[0]?.[0].scheme ?? "critic";
  const labels = VERDICT_CATEGORIES[scheme];
  const blocking = labels[0];
  const transitions: Record<string, number> = {};
  let b = 0;
  let c = 0;
  let n = 0;
  for (const [ai, bi] of items) {
    const ma = ai.modal_verdict;
    const mb = bi.modal_verdict;
    if (ma === null || mb === null) continue;
    n++;
    const t = `${mb} → ${ma}`;
    transitions[t] = (transitions[t] ?? 0) + 1;
    const blocksA = ma === blocking;
    const blocksB = mb === blocking;
    if (blocksA && !blocksB) b++;
    if (blocksB && !blocksA) c++;
  }
  const vector = (counts: Record<string, number>) => labels.map((l) => counts[l] ?? 0);
  const excess = excessDisagreementTest(
    items.map(([ai, bi]) => ({ a: vector(ai.verdict_counts), b: vector(bi.verdict_counts) })),
    { reps: sameRun ? 0 : reps, seed },
  );
  const statistic = sameRun && excess.statistic !== null ? 0 : excess.statistic;
  return {
    suite,
    n_items: n,
    transitions,
    mcnemar: { b, c, ...mcnemar(b, c) },
    excess_disagreement: { statistic, p: sameRun && statistic !== null ? 1 : excess.p, n_items: excess.nItems, reps: sameRun ? 0 : reps, seed, same_run: sameRun },
    changed_items: changed.filter((x) => x.item.startsWith(`${suite}/`)),
  };
}

/** A metric's paired delta, A − B, with its interval (metricDelta: never [0, 0]). */
function compareMetric(metric: string, a: Snapshot, b: Snapshot): MetricComparison {
  const d = metricDelta(metric, b, a);
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

/** A and B are the same run(s): every trial on one side is a trial on the other. */
function sameRuns(a: Snapshot, b: Snapshot): boolean {
  const ids = (s: Snapshot) => s.runs.map((r) => r.run_id);
  return ids(a).every((id) => id !== null) && JSON.stringify(ids(a)) === JSON.stringify(ids(b));
}

/**
 * Model-swap comparison of run A against run B on the same items (methodology-notes §3, §9.9):
 * every configuration difference named; per suite, the modal-verdict transition table, McNemar
 * on item-level blocking, excess disagreement with its within-item permutation test, and the
 * changed items with the diff's per-item exact test (Holm over items); per metric, the paired
 * per-item delta with its t-interval, clustered by fixture group. Items whose content hash
 * differs are not paired.
 */
export function compareSnapshots(a: Snapshot, b: Snapshot, opts: { reps?: number; seed?: number } = {}): Comparison {
  const { reps = 10_000, seed = 0 } = opts;
  const paired = pairedItems(a, b);
  const suites = [...new Set(paired.map(([ai]) => ai.suite))].sort();
  const metrics = [...new Set(paired.flatMap(([ai]) => Object.keys(ai.values)))].sort();
  const diff = diffSnapshots(b, a);
  const hashes = new Map(paired.map(([ai]) => [itemKey(ai), true]));
  const changed: ChangedItem[] = diff.deltas
    .filter((d) => d.kind === "verdict" && hashes.has(d.item))
    .map((d) => ({
      item: d.item,
      a: d.candidate_counts,
      b: d.baseline_counts,
      p: d.p_value,
      p_holm: d.p_holm,
      beyond_noise: d.beyond_noise,
      causes: d.causes.map((c) => c.part),
    }));
  const same = sameRuns(a, b);
  return {
    a: { name: a.name, runs: describeSnapshot(a) },
    b: { name: b.name, runs: describeSnapshot(b) },
    differences: diff.differences,
    coverage: coverage(b, a),
    suites: suites.map((s) => compareSuite(s, paired.filter(([ai]) => ai.suite === s), changed, same, reps, seed)),
    metrics: metrics.map((m) => compareMetric(m, a, b)),
  };
}
