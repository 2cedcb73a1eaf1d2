import { BLOCKER_ELIGIBLE_FAMILIES, FAMILIES, type Family } from "../formats/enums.ts";
import { isCleanControl, type Fixture, type SeededDefect } from "../formats/fixture.ts";
import { isHighBlast } from "../formats/plan.ts";
import type { NormalizedFinding } from "../formats/findings.ts";
import type { TrialRecord } from "../formats/records.ts";
import type { CountRatioItem } from "../stats/bootstrap.ts";
import { itemMeanMetric, itemShareMetric, ratioMetric, type ItemValue } from "./estimate.ts";
import { countedTrials, itemTrialShare, type ItemTrials } from "./items.ts";
import { criticFindings, isAtTask, isCounted } from "./trial-facts.ts";
import type { EstimateContext, MetricMap } from "./types.ts";

/** A boundary item joined with its fixture (items without a fixture cannot be judged). */
export interface FixtureItem {
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

/** The engine approved a plan: its full decision (DESIGN.md §6), whoever could have blocked it. */
const approvedByEngine = (t: TrialRecord) => t.verdict === "approve";
/** The critic let the plan through: none of its own blockers blocks. */
const passedByCritic = (t: TrialRecord) => t.critic_verdict === "pass";
/** The critic blocked the plan. */
const blockedByCritic = (t: TrialRecord) => t.critic_verdict === "block";

/** Seeded-defect fixtures whose correct decision under their own tolerance is escalate: the under-claim base. */
function expectsEscalation(f: Fixture): boolean {
  return !isCleanControl(f) && f.expected_verdict[f.goal.risk_tolerance] === "escalate";
}

/** Seeded-defect fixtures that a correct critic blocks under their own tolerance: the critic-miss base. */
function expectsCriticBlock(f: Fixture): boolean {
  return !isCleanControl(f) && f.expected_critic_verdict[f.goal.risk_tolerance] === "block";
}

/** Fixtures on which no gate can see a defect: only the critic speaks. */
function isGateInvisible(f: Fixture): boolean {
  return f.seeded_defects.every((d) => !d.gate_visible);
}

/**
 * The per-trial rates on boundary fixtures, each with the fixtures it is computed over and the
 * trial event it counts (DESIGN.md §10, methodology-notes §9.5). One table serves the summary and
 * the baseline's per-item values. Engine level, on seeded fixtures whose correct decision is
 * escalate: `underclaim_approvals` is the per-call share of counted trials whose full decision
 * approves (a defective plan got no blocker of any origin), `critical_underclaims` the same where
 * the defect sits on a high-blast task. Critic level, on seeded fixtures a correct critic blocks:
 * `critic_miss_rate` (critic_verdict pass), `critical_critic_misses` (high-blast defect),
 * `critic_miss_rate.gate_invisible` (no gate catches it: the critic alone speaks). Over-claim on
 * clean controls: the critic blocks.
 */
export const FIXTURE_TRIAL_RATES: Readonly<Record<string, { over: (f: Fixture) => boolean; event: (t: TrialRecord) => boolean }>> = {
  underclaim_approvals: { over: expectsEscalation, event: approvedByEngine },
  critical_underclaims: { over: (f) => expectsEscalation(f) && hasCriticalDefect(f), event: approvedByEngine },
  critic_miss_rate: { over: expectsCriticBlock, event: passedByCritic },
  critical_critic_misses: { over: (f) => expectsCriticBlock(f) && hasCriticalDefect(f), event: passedByCritic },
  "critic_miss_rate.gate_invisible": { over: (f) => expectsCriticBlock(f) && isGateInvisible(f), event: passedByCritic },
  overclaim_rate: { over: isCleanControl, event: blockedByCritic },
};

/** One item's value of a FIXTURE_TRIAL_RATES rate: its share of counted trials with the event (the summary and the baseline's per-item values both read it here). */
export function fixtureTrialShare(item: ItemTrials, rate: (typeof FIXTURE_TRIAL_RATES)[string]): ItemValue | null {
  return itemTrialShare(item, rate.event, isCounted);
}

function rates(items: readonly FixtureItem[], metric: keyof typeof FIXTURE_TRIAL_RATES): ItemValue[] {
  const rate = FIXTURE_TRIAL_RATES[metric]!;
  return items
    .filter((it) => rate.over(it.fixture))
    .map(({ item }) => fixtureTrialShare(item, rate))
    .filter((v) => v !== null);
}

/**
 * The rates of FIXTURE_TRIAL_RATES, plus item shares, so that one fixture failing in every trial
 * is not averaged away by the rest (a per-fixture gate, anchors' pitfall 5): on the engine-level
 * under-claim base, `underclaim_approvals_majority` (items most of whose trials approve) and
 * `_any` (at least one); on the clean controls with two counted trials or more,
 * `overclaim_majority` (items most of whose trials the critic blocks: a sound plan blocked as a
 * rule, not by chance).
 */
export function fixtureRateMetrics(items: readonly FixtureItem[], ctx: EstimateContext): MetricMap {
  const metrics: MetricMap = {};
  for (const name of Object.keys(FIXTURE_TRIAL_RATES)) metrics[name] = itemMeanMetric(rates(items, name), ctx);
  const share = (values: readonly ItemValue[], hit: (v: ItemValue) => boolean) =>
    itemShareMetric(
      values.map((v) => ({ hit: hit(v), trials: v.trials })),
      ctx,
    );
  const mostTrials = (v: ItemValue) => v.events! > v.trials / 2;
  const approvals = rates(items, "underclaim_approvals");
  metrics.underclaim_approvals_majority = share(approvals, mostTrials);
  metrics.underclaim_approvals_any = share(approvals, (v) => v.events! >= 1);
  // One trial is no rule: a clean control joins once it has two (one block in one trial, about one
  // clean control in fifty for a critic that over-claims 2% of the time, would otherwise fail a
  // one-trial run's floor by chance).
  metrics.overclaim_majority = share(
    rates(items, "overclaim_rate").filter((v) => v.trials >= 2),
    mostTrials,
  );
  return metrics;
}

/** How one trial treated one seeded defect (methodology §9.4). */
export type DefectOutcome = "hit" | "migrated" | "misfiled" | "missed";

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

export const CONFUSION_COLUMNS = [...FAMILIES, "unknown", "missed"] as const;

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

/** One seeded fixture's counts behind `family_migration_rate` (migrated over detected), for pairing item by item; a clean control has none. */
export function familyMigrationParts(item: FixtureItem): CountRatioItem {
  return migrationOf(isCleanControl(item.fixture) ? [] : defectOutcomes(item));
}

/**
 * Family migration: Σ migrated / Σ detected over (trial, defect) units of seeded fixtures,
 * clustered by item (cluster bootstrap), with the intended × observed confusion matrix.
 */
export function familyMigration(items: readonly FixtureItem[], ctx: EstimateContext): { metric: MetricMap; confusion: FamilyConfusion } {
  const counts = FAMILIES.map(() => CONFUSION_COLUMNS.map(() => 0));
  const ratioItems = items
    .filter((it) => !isCleanControl(it.fixture))
    .map((it) => {
      const outcomes = defectOutcomes(it);
      for (const { defect, observed } of outcomes) counts[FAMILIES.indexOf(defect.family)]![CONFUSION_COLUMNS.indexOf(observed as (typeof CONFUSION_COLUMNS)[number])]! += 1;
      return { ...migrationOf(outcomes), trials: countedTrials(it.item).length, cluster: it.item.cluster };
    });
  return {
    metric: { family_migration_rate: ratioMetric(ratioItems, ctx, "family_migration_rate") },
    confusion: { rows: FAMILIES, columns: CONFUSION_COLUMNS, counts },
  };
}
