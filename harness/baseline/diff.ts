import { causesForItem, configDifferences, coverage, type Coverage, type Difference } from "./compat.ts";
import { fisherExact } from "../../src/stats/exact.ts";
import { holmByFamily } from "../../src/stats/multiplicity.ts";
import { itemKey, type Snapshot, type SnapshotItem } from "../../src/formats/snapshot.ts";
import { VERDICT_CATEGORIES } from "../../src/metrics/trial-facts.ts";

type DeltaKind = "verdict" | "blocker_new" | "blocker_lost";
type Attribution = "cause" | "noise" | "unexplained";

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
  /** Trials of the item in each run (pooled over the baseline's runs). */
  baseline_trials: number;
  candidate_trials: number;
  attribution: Attribution;
  /** The recorded causes in scope for the item, named; listed whatever the attribution. */
  causes: Difference[];
  /** Fisher's exact two-sided p of the item's counts (blocking or not; key blocked or not) in the two runs. */
  p_value: number;
  /** p after Holm over every per-item test of the diff. */
  p_holm: number;
  /** p_holm ≤ α: the change is more than the item's trial-to-trial noise. */
  beyond_noise: boolean;
}

export interface DiffResult {
  compatible: boolean;
  /** Every recorded configuration difference, the seed included (causes and not). */
  differences: Difference[];
  coverage: Coverage;
  trials_per_item: { baseline: number | null; candidate: number | null };
  alpha: number;
  /** The per-item tests, in Holm's two families: one verdict test per compared item; one per blocker key seen on an item. */
  tests: { verdict: number; blocker_key: number };
  /**
   * The smallest p any one item's verdict test can reach with these trial counts (all trials one
   * way in one run, the other way in the other; a key's test can reach no less), and the p Holm's
   * first step needs in each family: when the first exceeds both, no single delta can be beyond noise.
   */
  power: { smallest_p: number | null; holm_first_step: number; key_holm_first_step: number };
  deltas: Delta[];
  unexplained: Delta[];
  counts: Record<Attribution, number>;
}

/** Counted trials of the item as [blocking verdict, the other verdict] (block | pass, escalated | approved). */
function blockingSplit(item: SnapshotItem): [number, number] {
  const [blocking, other] = VERDICT_CATEGORIES[item.scheme];
  return [item.verdict_counts[blocking!] ?? 0, item.verdict_counts[other!] ?? 0];
}

/** Whether the key blocked in a majority of the item's counted trials (the ones its count is over). */
function mostlyBlocks(count: number, item: SnapshotItem): boolean {
  return count > item.n_counted / 2;
}

/**
 * A test of one item (its verdict, or one blocker key), the delta it is reported as, and whether
 * the item visibly changed (modal verdict, or the key's majority): a delta is reported when it
 * changed, or (verdict tests) when its counts moved beyond noise.
 */
interface ItemTest {
  p: number;
  delta: Omit<Delta, "p_value" | "p_holm" | "beyond_noise" | "attribution">;
  changed: boolean;
  reportBeyondNoise: boolean;
}

function itemTests(b: SnapshotItem, a: SnapshotItem, differences: readonly Difference[]): ItemTest[] {
  const causes = causesForItem(differences, b.suite, b.item_hash, a.item_hash);
  const common = {
    item: itemKey(b),
    causes,
    baseline_counts: b.verdict_counts,
    candidate_counts: a.verdict_counts,
    baseline_trials: b.n_trials,
    candidate_trials: a.n_trials,
  };
  const verdictP = fisherExact(...blockingSplit(b), ...blockingSplit(a));
  const out: ItemTest[] = [
    {
      p: verdictP,
      delta: { ...common, kind: "verdict", key: null, baseline: b.modal_verdict, candidate: a.modal_verdict },
      changed: b.modal_verdict !== a.modal_verdict,
      reportBeyondNoise: true,
    },
  ];
  const keys = [...new Set([...Object.keys(b.blocker_key_counts), ...Object.keys(a.blocker_key_counts)])].sort();
  for (const key of keys) {
    const nb = b.blocker_key_counts[key] ?? 0;
    const na = a.blocker_key_counts[key] ?? 0;
    const blocksA = mostlyBlocks(na, a);
    out.push({
      p: fisherExact(nb, b.n_counted - nb, na, a.n_counted - na),
      delta: { ...common, kind: blocksA ? "blocker_new" : "blocker_lost", key, baseline: nb, candidate: na },
      changed: mostlyBlocks(nb, b) !== blocksA,
      reportBeyondNoise: false,
    });
  }
  return out;
}

/**
 * Diff a candidate against a baseline (docs/design.md §11, methodology-notes §9.9). Every recorded
 * configuration difference is named first (the seed and the trial count included). Then, on the
 * items of both runs, every item gets an exact two-sided test (Fisher) of its verdict counts,
 * blocking against not, baseline against candidate, Holm-corrected over all the items at `alpha`
 * (the contract's family); and one test per blocker key seen on it (blocked in a trial or not),
 * Holm-corrected over all the keys at `alpha`, a family of its own, so the keys never thin out the
 * verdicts' correction. A unanimous baseline item is judged by the same test (5/0 against 2/3 is
 * p = 1/6: noise). A delta is an item whose modal verdict changed (or whose blocking share moved
 * beyond noise), or a key that now blocks in a majority of trials and did not (`blocker_new`) or
 * the reverse (`blocker_lost`). Each is `noise` unless Holm rejects in its family; beyond noise it
 * is `cause` when a recorded cause in scope for the item differs (named), else `unexplained`. A
 * configuration difference never turns noise into a cause.
 */
export function diffSnapshots(b: Snapshot, a: Snapshot, alpha = 0.05): DiffResult {
  const differences = configDifferences(b, a);
  const cov = coverage(b, a);
  const aItems = new Map(a.items.map((i) => [itemKey(i), i]));
  const tests: ItemTest[] = [];
  let smallest: number | null = null;
  for (const bi of b.items) {
    const ai = aItems.get(itemKey(bi));
    if (!ai) continue;
    tests.push(...itemTests(bi, ai, differences));
    // The smallest p a verdict test can reach: all trials one way in one run, the other way in the
    // other (5 against 5 trials: 2/252 = 0.0079; 25 against 5: 1/142,506 = 7.0e-6).
    const floor = fisherExact(bi.n_counted, 0, 0, ai.n_counted);
    if (bi.n_counted > 0 && ai.n_counted > 0 && (smallest === null || floor < smallest)) smallest = floor;
  }
  const verdictTests = tests.filter((t) => t.delta.kind === "verdict").length;
  const adjusted = holmByFamily(
    tests.map((t) => t.p),
    (i) => (tests[i]!.delta.kind === "verdict" ? "verdict" : "blocker key"),
  );
  const deltas: Delta[] = [];
  tests.forEach((t, i) => {
    const beyond = adjusted[i]! <= alpha;
    if (!t.changed && !(beyond && t.reportBeyondNoise)) return;
    const attribution: Attribution = !beyond ? "noise" : t.delta.causes.length > 0 ? "cause" : "unexplained";
    deltas.push({ ...t.delta, p_value: t.p, p_holm: adjusted[i]!, beyond_noise: beyond, attribution });
  });
  const counts: Record<Attribution, number> = { cause: 0, noise: 0, unexplained: 0 };
  for (const d of deltas) counts[d.attribution]++;
  return {
    compatible: differences.length === 0 && cov.changed.length === 0,
    differences,
    coverage: cov,
    trials_per_item: { baseline: b.trials_per_item, candidate: a.trials_per_item },
    alpha,
    tests: { verdict: verdictTests, blocker_key: tests.length - verdictTests },
    power: {
      smallest_p: smallest,
      holm_first_step: verdictTests ? alpha / verdictTests : alpha,
      key_holm_first_step: tests.length > verdictTests ? alpha / (tests.length - verdictTests) : alpha,
    },
    deltas,
    unexplained: deltas.filter((d) => d.attribution === "unexplained"),
    counts,
  };
}
