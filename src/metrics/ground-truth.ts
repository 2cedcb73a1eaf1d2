import { BLOCKER_ELIGIBLE_FAMILIES, FAMILIES, type Family } from "../formats/enums.ts";
import { isCleanControl, type Fixture, type SeededDefect } from "../formats/fixture.ts";
import { isHighBlast } from "../formats/plan.ts";
import type { NormalizedFinding } from "../formats/findings.ts";
import type { TrialRecord } from "../formats/records.ts";
import type { CountRatioItem } from "../stats/bootstrap.ts";
import type { ItemValue, RatioItem } from "./estimate.ts";
import { countedTrials, itemTrialShare, type ItemTrials } from "./items.ts";
import { criticFindings, isAtTask, isCounted } from "./trial-facts.ts";

/** A boundary item joined with its fixture (items without a fixture cannot be judged). */
interface FixtureItem {
  item: ItemTrials;
  fixture: Fixture;
}

/** Seeded fixture whose defect sits on a high-blast task: where an under-claim is critical. */
export function hasCriticalDefect(fixture: Fixture): boolean {
  return fixture.seeded_defects.some((d) => {
    const task = fixture.plan.tasks.find((t) => t.id === d.task);
    return task !== undefined && isHighBlast(task);
  });
}

/** The engine approved a plan: its full decision (docs/design.md §6), whoever could have blocked it. */
export const approvedByEngine = (t: TrialRecord) => t.verdict === "approve";
/** The critic let the plan through: none of its own blockers blocks. */
export const passedByCritic = (t: TrialRecord) => t.critic_verdict === "pass";
/** The critic blocked the plan. */
export const blockedByCritic = (t: TrialRecord) => t.critic_verdict === "block";

/** Seeded-defect fixtures whose correct decision under their own tolerance is escalate: the under-claim base. */
export function expectsEscalation(f: Fixture): boolean {
  return !isCleanControl(f) && f.expected_verdict[f.goal.risk_tolerance] === "escalate";
}

/** Seeded-defect fixtures that a correct critic blocks under their own tolerance: the critic-miss base. */
export function expectsCriticBlock(f: Fixture): boolean {
  return !isCleanControl(f) && f.expected_critic_verdict[f.goal.risk_tolerance] === "block";
}

/** Fixtures on which no gate can see a defect: only the critic speaks. */
export function isGateInvisible(f: Fixture): boolean {
  return f.seeded_defects.every((d) => !d.gate_visible);
}

/** One fixture's share of its counted trials with the event: the per-item value of every per-trial rate on fixtures. */
export function fixtureTrialShare(item: ItemTrials, event: (t: TrialRecord) => boolean): ItemValue | null {
  return itemTrialShare(item, event, isCounted);
}

/** How one trial treated one seeded defect (methodology §9.4). */
type DefectOutcome = "hit" | "migrated" | "misfiled" | "missed";

/** Families in which a critic blocker may not block: a defect filed there is advisory only. Unknown families count as advisory (they are capped at warning). */
function isAdvisory(family: string): boolean {
  return !(BLOCKER_ELIGIBLE_FAMILIES as readonly string[]).includes(family);
}

export function classifyDefect(findings: readonly NormalizedFinding[], defect: SeededDefect): DefectOutcome {
  const atLocus = findings.filter((f) => isAtTask(f, defect.task));
  if (atLocus.length === 0) return "missed";
  if (atLocus.some((f) => f.family === defect.family)) return "hit";
  return atLocus.some((f) => isAdvisory(f.family)) ? "migrated" : "misfiled";
}

const SEVERITY_RANK = { blocker: 0, warning: 1, info: 2 } as const;

/** The family a non-hit detection was filed under: the most severe finding at the locus, then by name. */
function observedFamily(findings: readonly NormalizedFinding[], defect: SeededDefect): string {
  const atLocus = findings
    .filter((f) => isAtTask(f, defect.task))
    .sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || (a.family < b.family ? -1 : a.family > b.family ? 1 : 0));
  const family = atLocus[0]!.family;
  return (FAMILIES as readonly string[]).includes(family) ? family : "unknown";
}

/** Intended × observed family counts over (trial, seeded defect) units; columns add `unknown` and `missed`. */
export interface FamilyConfusion {
  rows: readonly Family[];
  columns: readonly string[];
  counts: number[][];
}

const CONFUSION_COLUMNS = [...FAMILIES, "unknown", "missed"] as const;

/** Each (counted trial, seeded defect) pair of a seeded fixture: how the trial treated the defect, and the family it was filed under. */
function defectOutcomes({ item, fixture }: FixtureItem): { defect: SeededDefect; outcome: DefectOutcome; observed: string }[] {
  return countedTrials(item).flatMap((trial) => {
    const findings = criticFindings(trial);
    return fixture.seeded_defects.map((defect) => {
      const outcome = classifyDefect(findings, defect);
      return { defect, outcome, observed: outcome === "missed" ? "missed" : outcome === "hit" ? defect.family : observedFamily(findings, defect) };
    });
  });
}

/** Migrated over detected (trial, defect) pairs. */
function migrationOf(outcomes: readonly { outcome: DefectOutcome }[]): CountRatioItem {
  return { num: outcomes.filter((o) => o.outcome === "migrated").length, den: outcomes.filter((o) => o.outcome !== "missed").length };
}

/**
 * One seeded fixture's counts behind `family_migration_rate`: migrated over detected (trial,
 * defect) pairs of its counted trials, clustered by its fixture group.
 */
export function familyMigrationParts(it: FixtureItem): RatioItem {
  return { ...migrationOf(defectOutcomes(it)), trials: countedTrials(it.item).length, cluster: it.item.cluster };
}

/** Intended × observed family counts over the (counted trial, seeded defect) pairs of the seeded fixtures. */
export function familyConfusion(items: readonly FixtureItem[]): FamilyConfusion {
  const counts = FAMILIES.map(() => CONFUSION_COLUMNS.map(() => 0));
  for (const it of items) {
    for (const { defect, observed } of defectOutcomes(it))
      counts[FAMILIES.indexOf(defect.family)]![CONFUSION_COLUMNS.indexOf(observed as (typeof CONFUSION_COLUMNS)[number])]! += 1;
  }
  return { rows: FAMILIES, columns: CONFUSION_COLUMNS, counts };
}
