import { pairwiseDisagreement } from "../stats/agreement.ts";
import type { Fixture } from "../formats/fixture.ts";
import { trialKey, type Suite, type TrialRecord } from "../formats/records.ts";
import type { ItemValue } from "./estimate.ts";
import { VERDICT_CATEGORIES, blockerKeysByOrigin, isCounted, verdictLabel, verdictScheme, type VerdictScheme } from "./trial-facts.ts";

/** All trials of one item, in trial order. Items are the unit of analysis. */
export interface ItemTrials {
  suite: Suite;
  item_id: string;
  scheme: VerdictScheme;
  /**
   * The independent unit the item belongs to: a boundary fixture's `group` (twins, triplets and
   * injection copies of one another are one cluster), otherwise the item itself.
   */
  cluster: string;
  trials: TrialRecord[];
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The cluster of an item: its fixture's group for a boundary item with a definition, else the item. */
function clusterOf(suite: Suite, itemId: string, groups: ReadonlyMap<string, string>): string {
  const group = suite === "boundary" ? groups.get(itemId) : undefined;
  return group === undefined ? `${suite}/${itemId}` : `group:${group}`;
}

/**
 * Group trials by (suite, item) in a canonical order (suite, then item id; trials by index), so
 * every metric and every bootstrap is independent of the order of the input; each item is placed
 * in its cluster (fixture group) from `fixtures`. A (suite, item, trial) key must appear once:
 * the run store keeps the last line of a key before metrics run.
 */
export function groupTrials(trials: readonly TrialRecord[], fixtures: readonly Fixture[] = []): ItemTrials[] {
  const groups = new Map(fixtures.map((f) => [f.id, f.group]));
  const seen = new Set<string>();
  const items = new Map<string, ItemTrials>();
  for (const trial of trials) {
    const key = trialKey(trial);
    if (seen.has(key)) throw new Error(`duplicate trial record ${key}: keep the last line of a key before computing metrics`);
    seen.add(key);
    const id = `${trial.suite}/${trial.item_id}`;
    const item = items.get(id) ?? {
      suite: trial.suite,
      item_id: trial.item_id,
      scheme: verdictScheme(trial),
      cluster: clusterOf(trial.suite, trial.item_id, groups),
      trials: [],
    };
    item.trials.push(trial);
    items.set(id, item);
  }
  const sorted = [...items.values()].sort((a, b) => byCodeUnit(a.suite, b.suite) || byCodeUnit(a.item_id, b.item_id));
  for (const g of sorted) g.trials.sort((a, b) => a.trial - b.trial);
  return sorted;
}

/** Verdict counts n_ic over the scheme's counted categories (critic_unavailable and error left out). */
export function countedVerdictCounts(item: ItemTrials): number[] {
  return VERDICT_CATEGORIES[item.scheme].map((c) => item.trials.filter((t) => verdictLabel(t) === c).length);
}

/** The most frequent counted verdict; ties go to the cautious category (block, escalated). */
export function modalVerdict(item: ItemTrials): string | null {
  const counts = countedVerdictCounts(item);
  const best = Math.max(...counts);
  return best === 0 ? null : VERDICT_CATEGORIES[item.scheme][counts.indexOf(best)]!;
}

/** Per-item reduction that baselines and diffs pair on. */
export interface ItemSummary {
  suite: Suite;
  item_id: string;
  /** Distinct item content hashes seen in the trials (more than one means the item changed mid-run). */
  item_hashes: string[];
  n_trials: number;
  /** Trials that enter verdict agreement (critic_verdict block|pass, or status approved|escalated with the critic available). */
  n_counted: number;
  /** Every verdict label with its count, the uncounted ones (unavailable, error) included. */
  verdict_counts: Record<string, number>;
  /** Q_i over the counted verdicts; null below two counted trials. */
  disagreement: number | null;
  modal_verdict: string | null;
  /** All counted trials agree; null with no counted trial. */
  unanimous: boolean | null;
  /**
   * Blocker keys with the number of counted trials in which each blocked (any round), gate and
   * critic: over the same trials as the verdict counts, so an outage or an unavailable critic (which
   * saw nothing to block) never reads as a key that stopped blocking.
   */
  blocker_keys: Record<string, number>;
  /** Escalation reasons with the number of trials that recorded each. */
  escalation_reasons: Record<string, number>;
}

function tally(values: Iterable<string>, into: Record<string, number>): void {
  for (const v of values) into[v] = (into[v] ?? 0) + 1;
}

function sortedRecord(r: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => byCodeUnit(a, b)));
}

export function summarizeItem(item: ItemTrials): ItemSummary {
  const counts = countedVerdictCounts(item);
  const nCounted = counts.reduce((s, n) => s + n, 0);
  const verdicts: Record<string, number> = {};
  const blockers: Record<string, number> = {};
  const reasons: Record<string, number> = {};
  for (const t of item.trials) {
    tally([verdictLabel(t)], verdicts);
    // An error trial's blockers and reasons are the outage's, not the item's (docs/design.md §6).
    if (t.status === "error") continue;
    tally(new Set(t.escalation_reasons), reasons);
    if (!isCounted(t)) continue;
    const keys = blockerKeysByOrigin(t);
    tally([...keys.gate, ...keys.critic], blockers);
  }
  return {
    suite: item.suite,
    item_id: item.item_id,
    item_hashes: [...new Set(item.trials.map((t) => t.item_hash))].sort(byCodeUnit),
    n_trials: item.trials.length,
    n_counted: nCounted,
    verdict_counts: sortedRecord(verdicts),
    disagreement: pairwiseDisagreement(counts),
    modal_verdict: modalVerdict(item),
    unanimous: nCounted === 0 ? null : counts.some((n) => n === nCounted),
    blocker_keys: sortedRecord(blockers),
    escalation_reasons: sortedRecord(reasons),
  };
}

/** Per-item reductions of a run, in canonical item order. */
export function itemSummaries(trials: readonly TrialRecord[]): ItemSummary[] {
  return groupTrials(trials).map(summarizeItem);
}

/**
 * Share of the item's trials `over` (default all, counted or not) for which `hit` holds, with the
 * count of those trials as its events: the per-item value of every per-trial rate. null with no
 * such trial.
 */
export function itemTrialShare(item: ItemTrials, hit: (t: TrialRecord) => boolean, over: (t: TrialRecord) => boolean = () => true): ItemValue | null {
  const trials = item.trials.filter(over);
  if (trials.length === 0) return null;
  const k = trials.filter(hit).length;
  return { value: k / trials.length, events: k, trials: trials.length, cluster: item.cluster };
}

/** Counted trials of the item (verdict-agreement metrics use only these). */
export function countedTrials(item: ItemTrials): TrialRecord[] {
  return item.trials.filter(isCounted);
}
