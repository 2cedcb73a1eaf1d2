import { checkEvidence } from "../critic/evidence.ts";
import type { RiskTolerance } from "../formats/enums.ts";
import type { NormalizedFinding } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";
import type { CriticAudit } from "../formats/records.ts";
import { graphOf } from "../graph/plan-graph.ts";
import { criticBlocks } from "./decide.ts";

/** A blocker in force that lapsed on a revised plan: the plan no longer has a task it cites. */
interface LapsedBlocker {
  key: string;
  /** The old task id: the first one the blocker cites (its task, then its evidence tasks) that the plan lacks. */
  task_id: string;
}

interface CarriedForward {
  /** Earlier blockers in force on this plan. */
  carried: NormalizedFinding[];
  /** Blockers in force after the previous round that lapsed because a task they cite is gone (renamed or removed). */
  lapsed: LapsedBlocker[];
}

/**
 * Carry-forward (docs/design.md §6): which earlier critic blockers are in force on a revised plan. Each
 * is re-checked on the new plan. One with supported evidence is in force in every round whose plan
 * supports it, whether or not the critic repeats it: an edit elsewhere cannot clear it, nor can a
 * revision that removes its task (the claim then names no task) followed by one that puts it
 * back. One with uncheckable evidence stays only while it is in force and no audit runs that does
 * not repeat it; once cleared it stays cleared. A blocker this round's audit repeats is not
 * carried: the fresh finding stands in its place. A blocker in force whose task is gone re-checks
 * as `unsupported_reference` and lapses; it is reported, so that escaping blockers by renaming
 * tasks shows in the trace.
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
): CarriedForward {
  const audited = audit?.outcome === "ok";
  const repeated = new Set(audited ? audit.findings.filter((f) => criticBlocks(f, tolerance)).map((f) => f.key) : []);
  const graph = graphOf(plan);
  const carried: NormalizedFinding[] = [];
  const lapsed: LapsedBlocker[] = [];
  const recheck = (finding: NormalizedFinding, stillInForce: boolean) => {
    if (repeated.has(finding.key)) return;
    const verdict = checkEvidence(goal, plan, finding);
    if (stillInForce && verdict.status === "unsupported_reference") {
      const gone = [finding.task_id, ...(finding.evidence?.tasks ?? [])].find((id) => id !== null && !graph.has(id));
      if (gone) lapsed.push({ key: finding.key, task_id: gone });
    }
    const rechecked = { ...finding, evidence_status: verdict.status, evidence_reason: verdict.reason };
    if (!criticBlocks(rechecked, tolerance)) return;
    if (verdict.status === "supported" || (stillInForce && !audited)) carried.push(rechecked);
  };
  for (const finding of inForce) recheck(finding, true);
  for (const finding of dropped) recheck(finding, false);
  return { carried, lapsed };
}
