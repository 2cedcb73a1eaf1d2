import { checkEvidence } from "../critic/evidence.ts";
import type { RiskTolerance } from "../formats/enums.ts";
import type { NormalizedFinding } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";
import type { CriticAudit } from "../formats/records.ts";
import { criticBlocks } from "./decide.ts";

/**
 * Carry-forward (DESIGN.md §6): which earlier critic blockers are in force on a revised plan. Each
 * is re-checked on the new plan. One with supported evidence is in force in every round whose plan
 * supports it, whether or not the critic repeats it: an edit elsewhere cannot clear it, nor can a
 * revision that removes its task (the claim then names no task) followed by one that puts it
 * back. One with uncheckable evidence stays only while it is in force and no audit runs that does
 * not repeat it; once cleared it stays cleared. A blocker this round's audit repeats is not
 * carried: the fresh finding stands in its place.
 *
 * `inForce`: the blockers in force after the previous round; `dropped`: those that blocked in an
 * earlier round and were no longer in force after the previous one.
 */
export function carryForward(
  goal: Goal,
  plan: Plan,
  inForce: readonly NormalizedFinding[],
  audit: CriticAudit | null,
  tolerance: RiskTolerance,
  dropped: readonly NormalizedFinding[] = [],
): NormalizedFinding[] {
  const audited = audit?.outcome === "ok";
  const repeated = new Set(audited ? audit.findings.filter((f) => criticBlocks(f, tolerance)).map((f) => f.key) : []);
  const carried: NormalizedFinding[] = [];
  const recheck = (finding: NormalizedFinding, stillInForce: boolean) => {
    if (repeated.has(finding.key)) return;
    const verdict = checkEvidence(goal, plan, finding);
    const rechecked = { ...finding, evidence_status: verdict.status, evidence_reason: verdict.reason };
    if (!criticBlocks(rechecked, tolerance)) return;
    if (verdict.status === "supported" || (stillInForce && !audited)) carried.push(rechecked);
  };
  for (const finding of inForce) recheck(finding, true);
  for (const finding of dropped) recheck(finding, false);
  return carried;
}
