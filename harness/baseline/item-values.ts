import type { Fixture } from "../../src/formats/fixture.ts";
import { AVAILABILITY_RATES, appliesTo } from "../../src/metrics/availability.ts";
import { itemEvidenceDrift } from "../../src/metrics/consistency.ts";
import { FIXTURE_TRIAL_RATES, fixtureTrialShare } from "../../src/metrics/ground-truth.ts";
import { countedVerdictCounts, itemTrialShare, type ItemTrials } from "../../src/metrics/items.ts";
import { pairwiseDisagreement } from "../../src/stats/agreement.ts";

/**
 * One item's own value of each item-mean metric it belongs to: the per-item reduction whose mean
 * over items is the summary metric (test/baseline/item-values.test.ts holds the two together).
 * The values come from the metrics' own per-item definitions (FIXTURE_TRIAL_RATES,
 * AVAILABILITY_RATES), so there is one definition of each. Paired deltas, the gate's
 * non-inferiority tests and `compare` pair runs on these. Ratio metrics (Σ numerators /
 * Σ denominators) have no per-item value here; gate them with floors.
 */
export function itemValues(item: ItemTrials, fixture: Fixture | undefined): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  const q = pairwiseDisagreement(countedVerdictCounts(item));
  if (item.scheme === "engine") out.engine_flip_rate = q;
  else {
    out.label_flip_rate = q;
    out.evidence_drift_rate = itemEvidenceDrift(item)?.value ?? null;
  }
  for (const [name, rate] of Object.entries(AVAILABILITY_RATES)) {
    if (appliesTo(rate, item.scheme)) out[name] = itemTrialShare(item, rate.event, rate.over)?.value ?? null;
  }
  if (item.scheme === "critic" && fixture) {
    for (const [name, rate] of Object.entries(FIXTURE_TRIAL_RATES)) if (rate.over(fixture)) out[name] = fixtureTrialShare(item, rate)?.value ?? null;
  }
  return out;
}
