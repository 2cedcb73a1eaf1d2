import { FAMILIES } from "../formats/enums.ts";
import type { NormalizedFinding } from "../formats/findings.ts";
import { ratioMetric, type RatioItem } from "./estimate.ts";
import { countedTrials, type ItemTrials } from "./items.ts";
import { criticFindings, rawSeverityIsBlocker } from "./trial-facts.ts";
import type { EstimateContext, MetricMap } from "./types.ts";

/** Per item: findings of the counted trials' completed critic audits, and how many trials gave them. */
function itemFindings(item: ItemTrials): { findings: NormalizedFinding[]; trials: number } {
  const trials = countedTrials(item);
  return { findings: trials.flatMap(criticFindings), trials: trials.length };
}

function ratioOver(items: readonly ItemTrials[], num: (f: NormalizedFinding) => boolean, den: (f: NormalizedFinding) => boolean): RatioItem[] {
  return items.map((item) => {
    const { findings, trials } = itemFindings(item);
    return { num: findings.filter((f) => den(f) && num(f)).length, den: findings.filter(den).length, trials, cluster: item.cluster };
  });
}

const checkable = (f: NormalizedFinding) => f.evidence_status !== "uncheckable";

/**
 * Unsupported evidence: critic findings whose evidence is contradicted by the plan or cites a task
 * the plan does not have, over findings with checkable evidence (supported, contradicted or
 * unsupported_reference). The two kinds are also reported apart, over the same denominator.
 */
export function unsupportedEvidence(items: readonly ItemTrials[], ctx: EstimateContext): MetricMap {
  const metric = (key: string, bad: (f: NormalizedFinding) => boolean) => ratioMetric(ratioOver(items, bad, checkable), ctx, key);
  return {
    unsupported_evidence_rate: metric("unsupported_evidence_rate", (f) => f.evidence_status === "contradicted" || f.evidence_status === "unsupported_reference"),
    "unsupported_evidence_rate.contradicted": metric("unsupported_evidence_rate.contradicted", (f) => f.evidence_status === "contradicted"),
    "unsupported_evidence_rate.missing_task": metric("unsupported_evidence_rate.missing_task", (f) => f.evidence_status === "unsupported_reference"),
  };
}

/** The family a finding is grouped under for per-family rates: one of the six, or `unknown`. */
export function familyGroup(f: NormalizedFinding): string {
  return (FAMILIES as readonly string[]).includes(f.family) ? f.family : "unknown";
}

export const DOWNGRADE_GROUPS = [...FAMILIES, "unknown"] as const;

/**
 * Downgrade rate: raw blockers (raw severity `blocker` after case-folding) whose normalized severity
 * is below blocker, over raw blockers; overall and per normalized family as
 * `downgrade_rate.<family>` (always all six families plus `unknown`, null when a family has no raw
 * blocker). Normalization can only lower a blocker, so raw blockers are the denominator.
 */
export function downgradeRates(items: readonly ItemTrials[], ctx: EstimateContext): MetricMap {
  const downgraded = (f: NormalizedFinding) => f.severity !== "blocker";
  const metrics: MetricMap = {
    downgrade_rate: ratioMetric(ratioOver(items, downgraded, rawSeverityIsBlocker), ctx, "downgrade_rate"),
  };
  for (const group of DOWNGRADE_GROUPS) {
    const key = `downgrade_rate.${group}`;
    metrics[key] = ratioMetric(
      ratioOver(items, downgraded, (f) => rawSeverityIsBlocker(f) && familyGroup(f) === group),
      ctx,
      key,
    );
  }
  return metrics;
}
