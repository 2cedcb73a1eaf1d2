import { checkEvidence } from "../critic/evidence.ts";
import type { RiskTolerance } from "../formats/enums.ts";
import type { NormalizedFinding } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";
import type { CriticAudit } from "../formats/records.ts";
import { criticBlocks } from "./decide.ts";

/**
 * Carry-forward (DESIGN.md §6): which earlier critic blockers stay in force on a revised plan.
 * Each is re-checked on the new plan. One with supported evidence stays while the plan still
 * supports it, whether or not the critic repeats it, so an edit elsewhere cannot clear it. One with
 * uncheckable evidence stays only until an audit runs that does not repeat it. A blocker this
 * round's audit repeats is not carried: the fresh finding stands in its place.
 */
export function carryForward(
  goal: Goal,
  plan: Plan,
  inForce: readonly NormalizedFinding[],
  audit: CriticAudit | null,
  tolerance: RiskTolerance,
): NormalizedFinding[] {
  const audited = audit?.outcome === "ok";
  const repeated = new Set(audited ? audit.findings.filter((f) => criticBlocks(f, tolerance)).map((f) => f.key) : []);
  const carried: NormalizedFinding[] = [];
  for (const finding of inForce) {
    if (repeated.has(finding.key)) continue;
    const recheck = checkEvidence(goal, plan, finding);
    const rechecked = { ...finding, evidence_status: recheck.status, evidence_reason: recheck.reason };
    if (!criticBlocks(rechecked, tolerance)) continue;
    if (recheck.status === "supported" || !audited) carried.push(rechecked);
  }
  return carried;
}
