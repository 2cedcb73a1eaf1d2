import { BLOCKER_ELIGIBLE_FAMILIES, FAMILIES, type Family } from "../formats/enums.ts";
import { isCleanControl, type Fixture, type SeededDefect } from "../formats/fixture.ts";
import { isHighBlast } from "../formats/plan.ts";
import type { NormalizedFinding } from "../formats/findings.ts";
import { itemMeanMetric, itemShareMetric, ratioMetric, type ItemValue } from "./estimate.ts";
import { countedTrials, type ItemTrials } from "./items.ts";
import { criticFindings, isAtTask } from "./trial-facts.ts";
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

/**
 * Share of an item's counted trials whose critic_verdict is `verdict`: the per-item value of the
 * under-claim (`pass` on a seeded fixture) and over-claim (`block` on a clean control) rates.
 * null with no counted trial.
 */
export function itemVerdictShare(item: ItemTrials, verdict: "block" | "pass"): (ItemValue & { k: number }) | null {
  const counted = countedTrials(item);
  if (counted.length === 0) return null;
  const k = counted.filter((t) => t.critic_verdict === verdict).length;
  return { value: k / counted.length, k, trials: counted.length };
}

function shares(items: readonly FixtureItem[], verdict: "block" | "pass") {
  return items.map(({ item }) => itemVerdictShare(item, verdict)).filter((v) => v !== null);
}

/**
 * Under-claim approvals on seeded-defect fixtures (methodology §9.5): per-call rate mean_i k_i/N_i,
 * majority form share of items with k_i > N_i/2, any-trial form share with k_i ≥ 1; plus the
 * critical (high-blast) and gate-invisible strata. Over-claim on clean controls: mean_i b_i/N_i.
 */
export function underclaimMetrics(items: readonly FixtureItem[], ctx: EstimateContext): MetricMap {
  const seeded = items.filter((it) => !isCleanControl(it.fixture));
  const approvals = shares(seeded, "pass");
  const gateInvisible = seeded.filter((it) => it.fixture.seeded_defects.every((d) => !d.gate_visible));
  return {
    underclaim_approvals: itemMeanMetric(approvals, ctx),
    underclaim_approvals_majority: itemShareMetric(
      approvals.map((a) => ({ hit: a.k > a.trials / 2, trials: a.trials })),
      ctx,
    ),
    underclaim_approvals_any: itemShareMetric(
      approvals.map((a) => ({ hit: a.k >= 1, trials: a.trials })),
      ctx,
    ),
    "underclaim_approvals.gate_invisible": itemMeanMetric(shares(gateInvisible, "pass"), ctx),
    critical_underclaims: itemMeanMetric(shares(seeded.filter((it) => hasCriticalDefect(it.fixture)), "pass"), ctx),
    overclaim_rate: itemMeanMetric(
      shares(
        items.filter((it) => isCleanControl(it.fixture)),
        "block",
      ),
      ctx,
    ),
  };
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

/**
 * Family migration: Σ migrated / Σ detected over (trial, defect) units of seeded fixtures,
 * clustered by item (cluster bootstrap), with the intended × observed confusion matrix.
 */
export function familyMigration(items: readonly FixtureItem[], ctx: EstimateContext): { metric: MetricMap; confusion: FamilyConfusion } {
  const counts = FAMILIES.map(() => CONFUSION_COLUMNS.map(() => 0));
  const ratioItems = items
    .filter((it) => !isCleanControl(it.fixture))
    .map(({ item, fixture }) => {
      const trials = countedTrials(item);
      let migrated = 0;
      let detected = 0;
      for (const trial of trials) {
        const findings = criticFindings(trial);
        for (const defect of fixture.seeded_defects) {
          const outcome = classifyDefect(findings, defect);
          const observed = outcome === "missed" ? "missed" : outcome === "hit" ? defect.family : observedFamily(findings, defect);
          counts[FAMILIES.indexOf(defect.family)]![CONFUSION_COLUMNS.indexOf(observed as (typeof CONFUSION_COLUMNS)[number])]! += 1;
          if (outcome !== "missed") detected += 1;
          if (outcome === "migrated") migrated += 1;
        }
      }
      return { num: migrated, den: detected, trials: trials.length };
    });
  return {
    metric: { family_migration_rate: ratioMetric(ratioItems, ctx, "family_migration_rate") },
    confusion: { rows: FAMILIES, columns: CONFUSION_COLUMNS, counts },
  };
}
