import { metricDef } from "../../src/metrics/catalogue.ts";
import { ROUNDING } from "../../src/metrics/estimate.ts";
import { clusterBootstrap } from "../../src/stats/bootstrap.ts";
import { normalCdf } from "../../src/stats/distributions.ts";
import { holmByFamily } from "../../src/stats/multiplicity.ts";
import { mantelHaenszel, mcnemar, twoSidedP } from "../../src/stats/paired.ts";
import type { MeanInterval } from "../../src/stats/mean.ts";
import { excessDisagreementTest } from "../../src/stats/permutation.ts";
import { coverage, isCause, type Coverage, type Difference } from "./compat.ts";
import { diffSnapshots } from "./diff.ts";
import { metricDelta } from "./gate.ts";
import { isRatioMetric, pairedItems, ratioDelta } from "./paired.ts";
import { defectProfile, type DefectProfile } from "./profile.ts";
import { describeSnapshot, itemKey, type Snapshot, type SnapshotItem } from "../../src/formats/snapshot.ts";
import { VERDICT_CATEGORIES } from "../../src/metrics/trial-facts.ts";

interface SuiteComparison {
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
   * test and the recorded causes in scope for each (docs/design.md §11 attribution).
   */
  changed_items: { item: string; a: Record<string, number>; b: Record<string, number>; p: number; p_holm: number; beyond_noise: boolean; causes: string[] }[];
}

interface MetricComparison {
  metric: string;
  a: number | null;
  b: number | null;
  /**
   * How the metric is paired: its per-item values (paired t; a per-trial rate of the fixtures'
   * counted trials tested by Mantel–Haenszel over the items' event counts), its per-item counts (a
   * ratio of sums, delta method), or a coefficient of the items' verdicts (agreement: paired
   * cluster bootstrap); null when the snapshots carry nothing to pair it on (`note` says why).
   */
  method: "paired_t" | "mantel_haenszel" | "delta_method" | "cluster_bootstrap" | null;
  /** Paired Δ = A − B over the shared items with its 95% interval; null below one shared item. */
  delta: number | null;
  ci_low: number | null;
  ci_high: number | null;
  se: number | null;
  /**
   * Two-sided p of Δ = 0, and after Holm across every paired metric that varies: a metric with no
   * variation in either run (every item at the same value in both) cannot reject at any level and
   * takes no share of α (its p is null, `note` says so; Tarone 1990).
   */
  p: number | null;
  p_holm: number | null;
  beyond_noise: boolean;
  n_items: number;
  note: string | null;
}

export interface Comparison {
  a: { name: string; runs: string };
  b: { name: string; runs: string };
  /** Every recorded configuration difference of A against B (B → A), the seed included. */
  differences: Difference[];
  coverage: Coverage;
  suites: SuiteComparison[];
  metrics: MetricComparison[];
  /** The defect-family profile of A and B (blockers per goal by family and origin) and the test of "same profile". */
  profile: DefectProfile;
  /**
   * One verdict over every paired metric (Holm at `alpha`): no difference beyond noise, or the
   * metrics on which B differs from A with the recorded causes that could explain it (the
   * configuration differences that are causes, as `diff` names them).
   */
  verdict: { alpha: number; differs: boolean; metrics: string[]; causes: string[]; line: string };
}

type ChangedItem = SuiteComparison["changed_items"][number];

function compareSuite(
  suite: string,
  items: [SnapshotItem, SnapshotItem][],
  changed: ChangedItem[],
  sameRun: boolean,
  reps: number,
  seed: number,
): SuiteComparison {
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
    excess_disagreement: {
      statistic,
      p: sameRun && statistic !== null ? 1 : excess.p,
      n_items: excess.nItems,
      reps: sameRun ? 0 : reps,
      seed,
      same_run: sameRun,
    },
    changed_items: changed.filter((x) => x.item.startsWith(`${suite}/`)),
  };
}

/**
 * A coefficient of the boundary items' counted verdicts, A − B, over the items with two counted
 * trials or more in both runs: percentile interval and bootstrap SE of the difference from a
 * cluster bootstrap of the paired items (a fixture group drawn whole), p from the normal.
 */
function coefficientDelta(metric: string, f: (counts: number[][]) => number | null, a: Snapshot, b: Snapshot, opts: { reps: number; seed: number }) {
  const labels = VERDICT_CATEGORIES.critic;
  const counts = (item: SnapshotItem) => labels.map((l) => item.verdict_counts[l] ?? 0);
  const rows = pairedItems(a, b)
    .filter(([ai]) => ai.scheme === "critic")
    .map(([ai, bi]) => ({ a: counts(ai), b: counts(bi), cluster: bi.cluster }))
    .filter((r) => r.a.reduce((s, n) => s + n, 0) >= 2 && r.b.reduce((s, n) => s + n, 0) >= 2);
  const boot = clusterBootstrap(
    rows,
    (sample) => {
      const [x, y] = [f(sample.map((r) => r.a)), f(sample.map((r) => r.b))];
      return x === null || y === null ? null : x - y;
    },
    { reps: opts.reps, seed: opts.seed, stream: `compare-${metric}`, clusterOf: (r) => r.cluster },
  );
  const p = boot.value === null || boot.se === null ? null : boot.se > 0 ? 2 * (1 - normalCdf(Math.abs(boot.value / boot.se))) : boot.value === 0 ? 1 : null;
  return { delta: boot.value, ci_low: boot.low, ci_high: boot.high, se: boot.se, p, n_items: rows.length };
}

/** Every shared item has one and the same value in both runs: nothing varied, nothing to test. */
function noVariation(metric: string, a: Snapshot, b: Snapshot): boolean {
  const values = pairedItems(a, b)
    .flatMap(([ai, bi]) => [ai.values[metric], bi.values[metric]])
    .filter((v) => v !== null && v !== undefined);
  return values.every((v) => v === values[0]);
}

/** Spread below rounding is none: items that all moved alike leave an SE of 1e-17, not 0. */
const seOf = (se: number | null) => (se !== null && se < ROUNDING ? 0 : se);

/**
 * A metric's paired delta, A − B, with its interval and p, by the catalogue's pairing: a ratio on
 * its items' counts (ratioDelta), an item-mean metric on its items' values (metricDelta: never
 * [0, 0]; a per-trial rate on fixtures tested by Mantel–Haenszel), an agreement coefficient by a
 * paired bootstrap; otherwise not paired, with the reason.
 */
function compareMetric(metric: string, a: Snapshot, b: Snapshot, opts: { reps: number; seed: number }): Omit<MetricComparison, "p_holm" | "beyond_noise"> {
  const base = { metric, a: a.metrics[metric]?.value ?? null, b: b.metrics[metric]?.value ?? null };
  const def = metricDef(metric);
  const unpaired = { ...base, method: null, delta: null, ci_low: null, ci_high: null, se: null, p: null, n_items: 0 };
  if (def === undefined) return { ...unpaired, note: "not a metric of this version's catalogue: not paired" };
  if (def.pairing === null) return { ...unpaired, note: "it has no per-item value (a figure of the whole run): not paired; gate it with a floor" };
  if (isRatioMetric(metric, a, b)) {
    const d = ratioDelta(metric, a, b);
    if (d && seOf(d.se) === 0 && d.mean === 0)
      return {
        ...base,
        method: "delta_method",
        delta: 0,
        ci_low: null,
        ci_high: null,
        se: d.se,
        p: null,
        n_items: d.n,
        note: "no variation in either run: no test",
      };
    return d
      ? { ...base, method: "delta_method", ...deltaFields(d), p: twoSidedP(d.mean, seOf(d.se), d.clusters - 1), note: null }
      : { ...unpaired, method: "delta_method", note: "no unit of this ratio on the shared items in one of the runs" };
  }
  if (def.statistic) {
    return { ...base, method: "cluster_bootstrap", ...coefficientDelta(metric, def.statistic, a, b, opts), note: null };
  }
  const d = metricDelta(metric, b, a);
  if (d !== null && d.se !== null && seOf(d.se) === 0 && d.mean === 0 && noVariation(metric, a, b)) {
    return { ...base, method: "paired_t", ...deltaFields(d), p: null, note: "no variation in either run: no test" };
  }
  if (d !== null && def.pairing === "mantel_haenszel") {
    const mh = mantelHaenszel(
      pairedItems(a, b).flatMap(([ai, bi]) => {
        const [va, vb] = [ai.values[metric], bi.values[metric]];
        return va === null || va === undefined || vb === null || vb === undefined
          ? []
          : [{ aEvents: Math.round(va * ai.n_counted), aTrials: ai.n_counted, bEvents: Math.round(vb * bi.n_counted), bTrials: bi.n_counted }];
      }),
    );
    return { ...base, method: "mantel_haenszel", ...deltaFields(d), p: mh?.p ?? null, note: mh ? null : "no event in either run: no test" };
  }
  if (d === null) {
    const kept = [...a.items, ...b.items].some((i) => metric in i.values || metric in i.ratios);
    return {
      ...unpaired,
      note: kept
        ? "no shared item with a value in both runs"
        : "no item of either run has a value or count of it (none is in its base, or a baseline published before they were recorded)",
    };
  }
  return { ...base, method: "paired_t", ...deltaFields(d), p: twoSidedP(d.mean, seOf(d.se), d.clusters - 1), note: null };
}

/** A paired difference's estimate as a comparison row states it. */
const deltaFields = (d: MeanInterval) => ({ delta: d.mean, ci_low: d.low, ci_high: d.high, se: d.se, n_items: d.n });

const f3 = (x: number | null) => (x === null ? "n/a" : Number(x.toPrecision(3)).toString());

/** The verdict line: no difference beyond noise, or where B differs from A and what recorded difference could cause it. */
function verdictOf(metrics: readonly MetricComparison[], differences: readonly Difference[], alpha: number): Comparison["verdict"] {
  const beyond = metrics.filter((m) => m.beyond_noise);
  const causes = differences.filter(isCause).map((d) => d.part);
  const tested = metrics.filter((m) => m.p !== null).length;
  const line = beyond.length
    ? `B differs from A on ${beyond.map((m) => `${m.metric} (${f3(m.b)} -> ${f3(m.a)}, Δ ${f3(m.delta)}, Holm p ${f3(m.p_holm)})`).join(", ")}; ${causes.length ? `recorded causes: ${causes.join(", ")}` : "no recorded configuration difference explains it"}`
    : `no difference beyond noise (${tested} metrics paired, Holm at ${alpha})${causes.length ? `; the configurations differ in ${causes.join(", ")}` : ""}`;
  return { alpha, differs: beyond.length > 0, metrics: beyond.map((m) => m.metric), causes, line };
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
export function compareSnapshots(a: Snapshot, b: Snapshot, opts: { reps?: number; seed?: number; alpha?: number } = {}): Comparison {
  const { reps = 10_000, seed = 0, alpha = 0.05 } = opts;
  const paired = pairedItems(a, b);
  const suites = [...new Set(paired.map(([ai]) => ai.suite))].sort();
  // Every summary metric of either run, paired when the snapshots carry its per-item parts.
  const names = [
    ...new Set([...Object.keys(a.metrics), ...Object.keys(b.metrics), ...paired.flatMap(([ai]) => [...Object.keys(ai.values), ...Object.keys(ai.ratios)])]),
  ].sort();
  // The bootstrap and the permutation tests need far fewer replicates than the excess-disagreement test's p near 0.05.
  const resampling = { reps: Math.min(reps, 2000), seed };
  const rows = names.map((m) => compareMetric(m, a, b, resampling));
  const adjusted = holmByFamily(rows.map((r) => r.p));
  const metrics: MetricComparison[] = rows.map((r, i) => ({ ...r, p_holm: adjusted[i]!, beyond_noise: adjusted[i] !== null && adjusted[i]! <= alpha }));
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
    suites: suites.map((s) =>
      compareSuite(
        s,
        paired.filter(([ai]) => ai.suite === s),
        changed,
        same,
        reps,
        seed,
      ),
    ),
    metrics,
    profile: defectProfile(a, b, resampling),
    verdict: verdictOf(metrics, diff.differences, alpha),
  };
}
