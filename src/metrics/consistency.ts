import { pairwiseDisagreement } from "../stats/agreement.ts";
import type { TrialRecord } from "../formats/records.ts";
import { bootstrapMetric, type ItemValue } from "./estimate.ts";
import { countedTrials, countedVerdictCounts, modalVerdict, type ItemTrials } from "./items.ts";
import { criticFindings, verdictLabel } from "./trial-facts.ts";
import type { EstimateContext, MetricValue } from "./types.ts";

/** An item's disagreement Q_i over its counted verdicts (label_flip_rate, engine_flip_rate); null below two counted trials. */
export function itemFlip(item: ItemTrials): ItemValue | null {
  const counts = countedVerdictCounts(item);
  const q = pairwiseDisagreement(counts);
  return q === null ? null : { value: q, trials: counts.reduce((s, n) => s + n, 0), cluster: item.cluster };
}

/**
 * A trial's evidence signature: the task ids its critic findings name (task_id and evidence tasks)
 * and the claim kinds they make. A simplification of claim drift: claim kinds stand in for
 * semantic claim clusters (METHODOLOGY.md).
 */
function evidenceSignature(trial: TrialRecord): Set<string> {
  const signature = new Set<string>();
  for (const f of criticFindings(trial)) {
    if (f.task_id !== null) signature.add(`task:${f.task_id}`);
    for (const task of f.evidence?.tasks ?? []) signature.add(`task:${task}`);
    signature.add(`claim:${f.evidence?.claim.trim().toLowerCase() ?? "none"}`);
  }
  return signature;
}

/** Jaccard similarity with J(∅, ∅) = 1. */
function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/**
 * Evidence drift of one item: 1 − mean pairwise Jaccard of evidence signatures among the counted
 * trials that agree with the modal verdict (drift given the decision, so flips are not counted
 * twice); null with fewer than two such trials.
 */
export function itemEvidenceDrift(item: ItemTrials): ItemValue | null {
  const modal = modalVerdict(item);
  const agreeing = countedTrials(item).filter((t) => verdictLabel(t) === modal);
  if (agreeing.length < 2) return null;
  const signatures = agreeing.map(evidenceSignature);
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < signatures.length; i++) {
    for (let j = i + 1; j < signatures.length; j++) {
      sum += jaccard(signatures[i]!, signatures[j]!);
      pairs += 1;
    }
  }
  return { value: 1 - sum / pairs, trials: agreeing.length, cluster: item.cluster };
}

/** Whether the item's counted verdicts are unanimous (at least one): evidence drift there is rationale instability alone. */
export function isUnanimous(item: ItemTrials): boolean {
  const counts = countedVerdictCounts(item);
  const n = counts.reduce((s, c) => s + c, 0);
  return n > 0 && counts.includes(n);
}

/**
 * A chance-corrected agreement coefficient (Krippendorff's α, Gwet's AC1) of the items' counted
 * verdicts over the items with two counted trials or more, with a percentile cluster bootstrap
 * (stream = the metric key).
 */
export function verdictCoefficient(
  items: readonly ItemTrials[],
  statistic: (counts: number[][]) => number | null,
  ctx: EstimateContext,
  stream: string,
): MetricValue {
  const rows = items
    .map((item) => {
      const counts = countedVerdictCounts(item);
      return { counts, trials: counts.reduce((s, n) => s + n, 0), cluster: item.cluster };
    })
    .filter((row) => row.trials >= 2);
  return bootstrapMetric(rows, (s) => statistic(s.map((r) => r.counts)), ctx, stream);
}
