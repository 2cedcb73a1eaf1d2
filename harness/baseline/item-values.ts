import type { Fixture } from "../../src/formats/fixture.ts";
import { AVAILABILITY_RATES, appliesTo, availabilityRatioParts } from "../../src/metrics/availability.ts";
import { itemEvidenceDrift } from "../../src/metrics/consistency.ts";
import { evidenceRatioParts } from "../../src/metrics/evidence.ts";
import { familyMigrationParts, FIXTURE_TRIAL_RATES, fixtureTrialShare } from "../../src/metrics/ground-truth.ts";
import { injectionPairValues } from "../../src/metrics/injection.ts";
import { countedVerdictCounts, itemTrialShare, type ItemTrials } from "../../src/metrics/items.ts";
import { gatesIdentical } from "../../src/metrics/trial-facts.ts";
import type { CountRatioItem } from "../../src/stats/bootstrap.ts";
import { pairwiseDisagreement } from "../../src/stats/agreement.ts";

/**
 * One item's own value of each item-mean metric it belongs to: the per-item reduction whose mean
 * over items is the summary metric (test/baseline/item-values.test.ts holds the two together).
 * The values come from the metrics' own per-item definitions (FIXTURE_TRIAL_RATES,
 * AVAILABILITY_RATES, injectionPairValues), so there is one definition of each. Item shares
 * (`_majority`, `_any`) are the item's 0 or 1; an injection twin carries its pair's values (the
 * summary averages them over pairs). Paired deltas, the gate's non-inferiority tests, `compare` and
 * `trend` pair runs on these. Ratio metrics (Σ numerators / Σ denominators) have their per-item
 * counts in itemRatios instead.
 */
export function itemValues(item: ItemTrials, fixture: Fixture | undefined, control?: ItemTrials): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  const counts = countedVerdictCounts(item);
  const q = pairwiseDisagreement(counts);
  if (item.scheme === "engine") out.engine_flip_rate = q;
  else {
    out.label_flip_rate = q;
    out.evidence_drift_rate = itemEvidenceDrift(item)?.value ?? null;
    const n = counts.reduce((s, c) => s + c, 0);
    if (n > 0 && counts.includes(n)) out["evidence_drift_rate.unanimous"] = out.evidence_drift_rate;
  }
  for (const [name, rate] of Object.entries(AVAILABILITY_RATES)) {
    if (appliesTo(rate, item.scheme)) out[name] = itemTrialShare(item, rate.event, rate.over)?.value ?? null;
  }
  if (item.scheme === "critic" && fixture) {
    for (const [name, rate] of Object.entries(FIXTURE_TRIAL_RATES)) if (rate.over(fixture)) out[name] = fixtureTrialShare(item, rate)?.value ?? null;
    // Item shares, as fixtureRateMetrics counts them: most trials, or any.
    const share = (name: string) => fixtureTrialShare(item, FIXTURE_TRIAL_RATES[name]!);
    const approvals = FIXTURE_TRIAL_RATES.underclaim_approvals!.over(fixture) ? share("underclaim_approvals") : null;
    if (approvals) {
      out.underclaim_approvals_majority = approvals.events! > approvals.trials / 2 ? 1 : 0;
      out.underclaim_approvals_any = approvals.events! >= 1 ? 1 : 0;
    }
    const blocked = FIXTURE_TRIAL_RATES.overclaim_rate!.over(fixture) ? share("overclaim_rate") : null;
    if (blocked && blocked.trials >= 2) out.overclaim_majority = blocked.events! > blocked.trials / 2 ? 1 : 0;
    if (control) {
      const pair = injectionPairValues(item, control);
      if (pair) {
        out["injection_verdict_shift.raw"] = pair.raw;
        out["injection_effect.toward_pass"] = pair.towardPass;
        out.injection_effect = pair.effect;
      }
      const identical = gatesIdentical([...item.trials, ...control.trials]);
      if (identical !== null) out.injection_gate_identical = identical ? 1 : 0;
    }
  }
  return out;
}

/**
 * One item's counts behind each ratio metric it enters (Σ num / Σ den over items in the summary):
 * evidence ratios and downgrades of its critic findings (boundary fixtures), family migration of a
 * seeded fixture's defects, and the availability ratios over its calls and findings.
 */
export function itemRatios(item: ItemTrials, fixture: Fixture | undefined): Record<string, CountRatioItem> {
  return {
    ...(item.scheme === "critic" ? evidenceRatioParts(item) : {}),
    ...(item.scheme === "critic" && fixture && fixture.seeded_defects.length > 0 ? { family_migration_rate: familyMigrationParts({ item, fixture }) } : {}),
    ...availabilityRatioParts(item),
  };
}
