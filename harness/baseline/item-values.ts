import { isCleanControl, type Fixture } from "../../src/formats/fixture.ts";
import { itemEvidenceDrift } from "../../src/metrics/consistency.ts";
import { itemTrialShare } from "../../src/metrics/availability.ts";
import { hasCriticalDefect, itemVerdictShare } from "../../src/metrics/ground-truth.ts";
import { countedVerdictCounts, type ItemTrials } from "../../src/metrics/items.ts";
import { pairwiseDisagreement } from "../../src/stats/agreement.ts";

/**
 * One item's own value of each item-mean metric it belongs to: the per-item reduction whose mean
 * over items is the summary metric (test/baseline/item-values.test.ts holds the two together).
 * The shares come from the metrics' own per-item functions, so there is one definition of each.
 * Paired deltas, the gate's non-inferiority tests and `compare` pair runs on these. Ratio
 * metrics (Σ numerators / Σ denominators) have no per-item value here; gate them with floors.
 */
export function itemValues(item: ItemTrials, fixture: Fixture | undefined): Record<string, number | null> {
  const q = pairwiseDisagreement(countedVerdictCounts(item));
  if (item.scheme === "engine") return { engine_flip_rate: q };
  const out: Record<string, number | null> = {
    label_flip_rate: q,
    evidence_drift_rate: itemEvidenceDrift(item)?.value ?? null,
    critic_unavailable_rate: itemTrialShare(item, (t) => t.critic_verdict === "unavailable")?.value ?? null,
  };
  if (!fixture) return out;
  if (isCleanControl(fixture)) {
    out.overclaim_rate = itemVerdictShare(item, "block")?.value ?? null;
  } else {
    const underclaim = itemVerdictShare(item, "pass")?.value ?? null;
    out.underclaim_approvals = underclaim;
    if (hasCriticalDefect(fixture)) out.critical_underclaims = underclaim;
  }
  return out;
}
