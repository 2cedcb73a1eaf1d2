import { isCleanControl, type Fixture } from "../../src/formats/fixture.ts";
import { itemEvidenceDrift } from "../../src/metrics/consistency.ts";
import { hasCriticalDefect } from "../../src/metrics/ground-truth.ts";
import { countedTrials, countedVerdictCounts, type ItemTrials } from "../../src/metrics/items.ts";
import { pairwiseDisagreement } from "../../src/stats/agreement.ts";

const share = (k: number, n: number) => (n === 0 ? null : k / n);

/**
 * One item's own value of each item-mean metric it belongs to: the per-item reduction whose mean
 * over items is the summary metric (test/baseline/item-values.test.ts holds the two together).
 * Paired deltas, the gate's non-inferiority tests and `compare` pair runs on these. Ratio
 * metrics (Σ numerators / Σ denominators) have no per-item value here; gate them with floors.
 */
export function itemValues(item: ItemTrials, fixture: Fixture | undefined): Record<string, number | null> {
  const q = pairwiseDisagreement(countedVerdictCounts(item));
  if (item.scheme === "engine") return { engine_flip_rate: q };
  const counted = countedTrials(item);
  const out: Record<string, number | null> = {
    label_flip_rate: q,
    evidence_drift_rate: itemEvidenceDrift(item)?.value ?? null,
    critic_unavailable_rate: share(item.trials.filter((t) => t.critic_verdict === "unavailable").length, item.trials.length),
  };
  if (!fixture) return out;
  if (isCleanControl(fixture)) {
    out.overclaim_rate = share(counted.filter((t) => t.critic_verdict === "block").length, counted.length);
  } else {
    const underclaim = share(counted.filter((t) => t.critic_verdict === "pass").length, counted.length);
    out.underclaim_approvals = underclaim;
    if (hasCriticalDefect(fixture)) out.critical_underclaims = underclaim;
  }
  return out;
}
