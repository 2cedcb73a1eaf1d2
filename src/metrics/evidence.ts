import { FAMILIES } from "../formats/enums.ts";
import type { NormalizedFinding } from "../formats/findings.ts";
import { ratioMetric, type RatioItem } from "./estimate.ts";
import { countedTrials, type ItemTrials } from "./items.ts";
import { criticFindings, rawSeverityIsBlocker } from "./trial-facts.ts";
import type { EstimateContext, MetricMap } from "./types.ts";

/** A ratio over critic findings: which findings it is a share of (den), and which of those it counts (num). */
interface FindingRatio {
  num: (f: NormalizedFinding) => boolean;
  den: (f: NormalizedFinding) => boolean;
}

const checkable = (f: NormalizedFinding) => f.evidence_status !== "uncheckable";

/**
 * Unsupported evidence: critic findings whose evidence is contradicted by the plan or cites a task
 * the plan does not have, over findings with checkable evidence (supported, contradicted or
 * unsupported_reference). The two kinds are also reported apart, over the same denominator.
 */
const UNSUPPORTED: Record<string, FindingRatio> = {
  unsupported_evidence_rate: { num: (f) => f.evidence_status === "contradicted" || f.evidence_status === "unsupported_reference", den: checkable },
  "unsupported_evidence_rate.contradicted": { num: (f) => f.evidence_status === "contradicted", den: checkable },
  "unsupported_evidence_rate.missing_task": { num: (f) => f.evidence_status === "unsupported_reference", den: checkable },
};

/** The family a finding is grouped under for per-family rates: one of the six, or `unknown`. */
export function familyGroup(f: NormalizedFinding): string {
  return (FAMILIES as readonly string[]).includes(f.family) ? f.family : "unknown";
}

export const DOWNGRADE_GROUPS = [...FAMILIES, "unknown"] as const;

const downgraded = (f: NormalizedFinding) => f.severity !== "blocker";

/**
 * Downgrade rate: raw blockers (raw severity `blocker` after case-folding) whose normalized severity
 * is below blocker, over raw blockers; overall and per normalized family as
 * `downgrade_rate.<family>` (always all six families plus `unknown`, null when a family has no raw
 * blocker). Normalization can only lower a blocker, so raw blockers are the denominator.
 */
const DOWNGRADE: Record<string, FindingRatio> = {
  downgrade_rate: { num: downgraded, den: rawSeverityIsBlocker },
  ...Object.fromEntries(
    DOWNGRADE_GROUPS.map((group) => [
      `downgrade_rate.${group}`,
      { num: downgraded, den: (f: NormalizedFinding) => rawSeverityIsBlocker(f) && familyGroup(f) === group },
    ]),
  ),
};

const EVIDENCE_RATIOS: Readonly<Record<string, FindingRatio>> = { ...UNSUPPORTED, ...DOWNGRADE };

/**
 * One item's counts behind an evidence ratio (unsupported evidence, a downgrade rate): the findings
 * it counts over the findings it is a share of, among the critic findings of the item's counted
 * trials, clustered by the item's group. The summary sums them over items; compare and drift pair
 * them item by item.
 */
export function evidenceCounts(item: ItemTrials, key: string): RatioItem {
  const r = EVIDENCE_RATIOS[key];
  if (r === undefined) throw new RangeError(`evidenceCounts: no evidence ratio ${key}`);
  const counted = countedTrials(item);
  const den = counted.flatMap(criticFindings).filter(r.den);
  return { num: den.filter(r.num).length, den: den.length, trials: counted.length, cluster: item.cluster };
}

function ratioMetrics(items: readonly ItemTrials[], keys: readonly string[], ctx: EstimateContext): MetricMap {
  return Object.fromEntries(
    keys.map((key) => [
      key,
      ratioMetric(
        items.map((item) => evidenceCounts(item, key)),
        ctx,
        key,
      ),
    ]),
  );
}

/** `unsupported_evidence_rate` and its two kinds over the items' critic findings (the research report's audit figures). */
export function unsupportedEvidence(items: readonly ItemTrials[], ctx: EstimateContext): MetricMap {
  return ratioMetrics(items, Object.keys(UNSUPPORTED), ctx);
}

/** `downgrade_rate` and `downgrade_rate.<family>` over the items' raw blockers (the research report's audit figures). */
export function downgradeRates(items: readonly ItemTrials[], ctx: EstimateContext): MetricMap {
  return ratioMetrics(items, Object.keys(DOWNGRADE), ctx);
}
