import { causesForItem, configDifferences, coverage, type Coverage, type Difference } from "./compat.ts";
import { fisherExact } from "./noise.ts";
import { itemKey, type Snapshot, type SnapshotItem } from "./schema.ts";
import { VERDICT_CATEGORIES } from "../../src/metrics/trial-facts.ts";

export type DeltaKind = "verdict" | "blocker_new" | "blocker_lost";
export type Attribution = "cause" | "noise" | "unexplained";

/** One per-item change between the baseline and the candidate, with what explains it. */
export interface Delta {
  item: string;
  kind: DeltaKind;
  /** The blocker key for blocker deltas; null for verdict deltas. */
  key: string | null;
  /** Verdict deltas: modal verdicts; blocker deltas: in how many of the item's trials the key blocked. */
  baseline: string | number | null;
  candidate: string | number | null;
  baseline_counts: Record<string, number>;
  candidate_counts: Record<string, number>;
  attribution: Attribution;
  /** The recorded differences that can explain it (attribution `cause`). */
  causes: Difference[];
  /** Whether the baseline already disagreed with itself on this item (its verdict, or this key). */
  baseline_unstable: boolean;
  /** Fisher's exact p for "same distribution in both runs" (the noise check); null when not needed. */
  p_value: number | null;
}

export interface DiffResult {
  compatible: boolean;
  /** Incompatible parts by name: every recorded configuration difference. */
  differences: Difference[];
  coverage: Coverage;
  trials_per_item: { baseline: number | null; candidate: number | null };
  alpha: number;
  deltas: Delta[];
  unexplained: Delta[];
  counts: Record<Attribution, number>;
}

/** Counted trials of the item as [blocking verdict, the other verdict] (block | pass, escalated | approved). */
function blockingSplit(item: SnapshotItem): [number, number] {
  const [blocking, other] = VERDICT_CATEGORIES[item.scheme];
  return [item.verdict_counts[blocking!] ?? 0, item.verdict_counts[other!] ?? 0];
}

/** Whether the key blocked in a majority of the item's trials. */
function mostlyBlocks(count: number, item: SnapshotItem): boolean {
  return count > item.n_trials / 2;
}

/**
 * The baseline disagreed with itself about the item's verdict: its counted trials split. An item
 * with no counted trial (unanimous null) has no verdict to disagree on, so it is not unstable.
 */
function verdictUnstable(item: SnapshotItem): boolean {
  return item.unanimous === false;
}

/** The baseline disagreed with itself about a key: on the item's verdict, or on whether the key blocked. */
function keyUnstable(count: number, item: SnapshotItem): boolean {
  return verdictUnstable(item) || (count > 0 && count < item.n_trials);
}

function attribute(causes: Difference[], baselineUnstable: boolean, p: number, alpha: number): Attribution {
  if (causes.length > 0) return "cause";
  return baselineUnstable && p >= alpha ? "noise" : "unexplained";
}

function itemDeltas(b: SnapshotItem, a: SnapshotItem, differences: Difference[], alpha: number): Delta[] {
  const causes = causesForItem(differences, b.suite, b.item_hash, a.item_hash);
  const out: Delta[] = [];
  const common = { item: itemKey(b), causes, baseline_counts: b.verdict_counts, candidate_counts: a.verdict_counts };
  const mb = b.modal_verdict;
  const ma = a.modal_verdict;
  if (mb !== ma) {
    const p = fisherExact(...blockingSplit(b), ...blockingSplit(a));
    const baselineUnstable = verdictUnstable(b);
    out.push({
      ...common,
      kind: "verdict",
      key: null,
      baseline: mb,
      candidate: ma,
      attribution: attribute(causes, baselineUnstable, p, alpha),
      baseline_unstable: baselineUnstable,
      p_value: p,
    });
  }
  const keys = [...new Set([...Object.keys(b.blocker_key_counts), ...Object.keys(a.blocker_key_counts)])].sort();
  for (const key of keys) {
    const nb = b.blocker_key_counts[key] ?? 0;
    const na = a.blocker_key_counts[key] ?? 0;
    const blocksA = mostlyBlocks(na, a);
    if (mostlyBlocks(nb, b) === blocksA) continue;
    const p = fisherExact(nb, b.n_trials - nb, na, a.n_trials - na);
    const baselineUnstable = keyUnstable(nb, b);
    out.push({
      ...common,
      kind: blocksA ? "blocker_new" : "blocker_lost",
      key,
      baseline: nb,
      candidate: na,
      attribution: attribute(causes, baselineUnstable, p, alpha),
      baseline_unstable: baselineUnstable,
      p_value: p,
    });
  }
  return out;
}

/**
 * Diff a candidate against a baseline (methodology-notes §9.9): the compatibility check first
 * (every recorded configuration difference is named), then, on the items of both runs, verdict
 * deltas (the modal verdict changed) and blocker-key deltas (a key that now blocks in a majority
 * of the item's trials and did not, `blocker_new`, or the reverse, `blocker_lost`; a key seen in
 * a minority of trials is the item's noise, visible in its counts). Each delta is attributed to
 * a recorded cause in scope for its item, else to noise (the baseline already disagreed with
 * itself on the item's verdict, or on the key, and Fisher's exact test at `alpha` does not
 * separate the runs), else it is unexplained.
 */
export function diffSnapshots(b: Snapshot, a: Snapshot, alpha = 0.05): DiffResult {
  const differences = configDifferences(b, a);
  const cov = coverage(b, a);
  const aItems = new Map(a.items.map((i) => [itemKey(i), i]));
  const deltas: Delta[] = [];
  for (const bi of b.items) {
    const ai = aItems.get(itemKey(bi));
    if (ai) deltas.push(...itemDeltas(bi, ai, differences, alpha));
  }
  const counts: Record<Attribution, number> = { cause: 0, noise: 0, unexplained: 0 };
  for (const d of deltas) counts[d.attribution]++;
  return {
    compatible: differences.length === 0 && cov.changed.length === 0,
    differences,
    coverage: cov,
    trials_per_item: { baseline: b.trials_per_item, candidate: a.trials_per_item },
    alpha,
    deltas,
    unexplained: deltas.filter((d) => d.attribution === "unexplained"),
    counts,
  };
}
