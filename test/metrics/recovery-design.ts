/**
 * The synthetic boundary set of the metric-recovery tests, and the analytic value of each recovered
 * metric on it under a sim noise profile. Every value is derived from the profile's critic
 * parameters (src/sim/README.md, "The critic") and the structure of the fixtures; none is
 * measured. test/metrics/recovery.test.ts checks that the design is what the derivation assumes.
 */
import { BLOCKER_ELIGIBLE_FAMILIES, type Family, type RiskTolerance } from "../../src/formats/enums.ts";
import type { GateCode } from "../../src/formats/findings.ts";
import { FixtureSchema, type Fixture, type SeededDefect } from "../../src/formats/fixture.ts";
import { GoalSchema, type Goal } from "../../src/formats/goal.ts";
import { PlanSchema, type Plan } from "../../src/formats/plan.ts";
import { graphOf } from "../../src/graph/plan-graph.ts";
import { templatePlan } from "../../src/sim/planner.ts";
import type { SimProfile } from "../../src/sim/profile.ts";

/** The four metrics of the issue-7 recovery acceptance line, by their summary key. */
export const RECOVERY_METRICS = ["label_flip_rate", "critic_miss_rate", "family_migration_rate", "unsupported_evidence_rate"] as const;
export type RecoveryMetric = (typeof RECOVERY_METRICS)[number];

/**
 * How many fixtures of each kind. 40 seeded fixtures keep the rarest recovered event (a migration
 * under the default profile, about 9 per sweep of 5 trials) from collapsing a bootstrap interval,
 * while one sweep stays at 260 critic trials.
 */
export const RECOVERY_DESIGN = {
  /** Gate-visible: the high-risk mutation has no rollback (strict goal). */
  rollbackMissing: 20,
  /** Gate-invisible: a low-risk mutation nothing checks (balanced goal). */
  uncheckedWarmup: 20,
  /** Clean controls: the sim's gate-clean template plan (strict goal). */
  clean: 12,
} as const;

const ENV_FACT = "maintenance_window_booked";

function goal(id: string, tolerance: RiskTolerance): Goal {
  return GoalSchema.parse({
    id,
    domain: "database",
    title: "Split the orders schema",
    description: "Move the orders tables into their own schema.",
    risk_tolerance: tolerance,
    constraints: { facts: [ENV_FACT] },
  });
}

/** A fixture whose seeded defects each trip `expectedGate` at their task (null: gate-invisible); escalate iff seeded. */
function fixture(id: string, g: Goal, plan: Plan, seeded: SeededDefect[], expectedGate: GateCode | null): Fixture {
  const verdict = seeded.length > 0 ? "escalate" : "approve";
  return FixtureSchema.parse({
    id,
    description: `metric-recovery fixture ${id}`,
    group: `metric-recovery-${id}`,
    goal: g,
    plan,
    seeded_defects: seeded,
    expected_gate_findings: expectedGate === null ? [] : seeded.map((d) => ({ code: expectedGate, task_id: d.task })),
    expected_verdict: { strict: verdict, balanced: verdict },
    expected_critic_verdict: { strict: seeded.length > 0 ? "block" : "pass", balanced: seeded.length > 0 ? "block" : "pass" },
  });
}

const mutationOf = (plan: Plan) => plan.tasks.find((t) => t.kind === "mutate")!.id;

/** The template plan without a rollback on its high-risk mutation; seeded as weak_rollback there. */
function rollbackMissingFixture(id: string): Fixture {
  const g = goal(id, "strict");
  const plan = templatePlan(g, new Set(["weak_rollback"]), 1, null);
  const task = mutationOf(plan);
  const defect: SeededDefect = { task, family: "weak_rollback", claim: { kind: "missing_rollback", tasks: [task], facts: [] }, gate_visible: true };
  return fixture(id, g, plan, [defect], "rollback_missing");
}

const WARMUP_TASK = "warm_query_cache";

/**
 * The clean template plan with a low-risk cache warm-up between the output check and the
 * notification: no gate asks a low-risk mutation for an output check, but the owners are told the
 * change is complete on a warm-up nothing verified. Seeded as unverified_dependencies there.
 */
function uncheckedWarmupFixture(id: string): Fixture {
  const g = goal(id, "balanced");
  const base = templatePlan(g, new Set(), 1, null);
  const notify = base.tasks.at(-1)!;
  const verify = base.tasks.at(-2)!;
  const plan = PlanSchema.parse({
    ...base,
    tasks: [
      ...base.tasks.slice(0, -1),
      { id: WARMUP_TASK, description: "Warm the query cache with the hot order queries", kind: "mutate", risk: "low", mutates: ["orders.query_cache"] },
      notify,
    ],
    dependencies: [...base.dependencies, { from: verify.id, to: WARMUP_TASK, kind: "hard" }, { from: WARMUP_TASK, to: notify.id, kind: "hard" }],
  });
  const defect: SeededDefect = {
    task: WARMUP_TASK,
    family: "unverified_dependencies",
    claim: { kind: "missing_verification", tasks: [WARMUP_TASK], facts: [] },
    gate_visible: false,
  };
  return fixture(id, g, plan, [defect], null);
}

function cleanFixture(id: string): Fixture {
  const g = goal(id, "strict");
  return fixture(id, g, templatePlan(g, new Set(), 1, null), [], null);
}

const numbered = (prefix: string, count: number, build: (id: string) => Fixture) =>
  Array.from({ length: count }, (_, i) => build(`${prefix}-${String(i + 1).padStart(2, "0")}`));

export function recoveryFixtures(): Fixture[] {
  return [
    ...numbered("recovery-rollback-missing", RECOVERY_DESIGN.rollbackMissing, rollbackMissingFixture),
    ...numbered("recovery-unchecked-warmup", RECOVERY_DESIGN.uncheckedWarmup, uncheckedWarmupFixture),
    ...numbered("recovery-clean", RECOVERY_DESIGN.clean, cleanFixture),
  ];
}

/**
 * Adjacent list neighbours (earlier, later) where the earlier runs before the later: the pairs the
 * sim critic's order hallucination picks from, uniformly (critic.ts `hallucination`; the README
 * only says "b runs before a").
 */
function orderedNeighbourPairs(plan: Plan): [string, string][] {
  const g = graphOf(plan);
  return plan.tasks.slice(1).flatMap((t, i) => (g.runsBeforePos(i, i + 1) ? [[plan.tasks[i]!.id, t.id] as [string, string]] : []));
}

/** Per-trial expectations of one fixture under one critic profile. */
interface ItemExpectation {
  seeded: boolean;
  /** P(critic_verdict = block) of a counted trial. */
  block: number;
  /** Expected critic findings per audit with checkable evidence (supported, contradicted, unsupported_reference). */
  checkable: number;
  /** Expected critic findings per audit whose evidence is contradicted or cites a missing task. */
  unsupported: number;
  /** Seeded fixtures: P(the seeded defect is classified migrated) and P(detected) per trial (METHODOLOGY §4.3). */
  migrated: number;
  detected: number;
}

/**
 * One fixture's per-trial expectations. The design guarantees (and the test checks) that the critic
 * perceives exactly the seeded defects — the only gate finding shares family and task with the
 * seeded defect, so the README's "not counted twice" applies — that every seeded claim checks
 * `supported`, and that a fixture carries at most one seeded defect, in a blocker-eligible family.
 *
 * Notation (README, "The critic"): m = miss_rate of the defect's family, μ = migration_rate,
 * s = severity_inflation_rate, h = hallucination_rate; r = 1 − m, the chance the defect is reported.
 *
 * - block. A reported, unmigrated defect keeps its blocker-eligible family and its supported
 *   evidence, so it blocks under either tolerance: r(1 − μ) (README: b = (1 − m)(1 − μ)). A
 *   migrated one is downgraded. The inflated blocker has `uncheckable` evidence: it blocks under
 *   strict only (README: over-claim s under strict, 0 under balanced). The hallucinated blocker
 *   never blocks (downgraded_evidence_rejected). The draws are independent, so
 *     strict:   P(block) = 1 − (1 − r(1 − μ))(1 − s)   (clean: s)
 *     balanced: P(block) = r(1 − μ)                    (clean: 0)
 * - checkable / unsupported. A reported defect carries its seeded, supported claim, migrated or
 *   not: r checkable findings per audit on a seeded fixture. The inflated finding claims `other`,
 *   which is uncheckable, so it is outside the denominator. The hallucinated finding is
 *   contradicted or unsupported_reference: README "unsupported-evidence findings per audit = h".
 * - migrated / detected. The metric classifies a defect by every critic finding at its task
 *   (METHODOLOGY §4.3), so noise landing on the task counts too. With T tasks, inflation lands on
 *   the defect's task with probability a_I = s/T, in the defect's family 1/4 of the time (uniform
 *   over the four blocker-eligible families); the order hallucination (half of the hallucinations,
 *   family unsafe_sequencing) cites it with probability a_H = h · ½ · c/P, where P ordered neighbour
 *   pairs exist and c of them contain the task. A hit needs a finding in the intended family, so
 *     noise hit       n = 1 − (1 − a_I/4)(1 − a_H·[family = unsafe_sequencing])
 *     P(migrated)     = r μ (1 − n)              (reported, filed advisory, and no hit from noise)
 *     P(detected)     = 1 − m (1 − a_I)(1 − a_H)  (something at the task)
 *   Without inflation and hallucination this is the README's "migration share among reported
 *   defects = μ".
 */
function itemExpectation(fx: Fixture, critic: SimProfile["critic"]): ItemExpectation {
  if (fx.seeded_defects.length > 1) throw new Error(`${fx.id}: the derivation assumes at most one seeded defect`);
  const defect = fx.seeded_defects[0];
  const s = critic.severity_inflation_rate;
  const h = critic.hallucination_rate;
  const inflationBlocks = fx.goal.risk_tolerance === "strict" ? s : 0;
  if (defect === undefined) {
    return { seeded: false, block: inflationBlocks, checkable: h, unsupported: h, migrated: 0, detected: 0 };
  }
  if (!BLOCKER_ELIGIBLE_FAMILIES.includes(defect.family)) throw new Error(`${fx.id}: the derivation assumes a blocker-eligible family`);
  const m = critic.miss_rate[defect.family];
  const mu = critic.migration_rate;
  const r = 1 - m;
  const keptBlocker = r * (1 - mu);
  const block = 1 - (1 - keptBlocker) * (1 - inflationBlocks);

  const pairs = orderedNeighbourPairs(fx.plan);
  const pairsAtTask = pairs.filter((p) => p.includes(defect.task)).length;
  const inflationAtTask = s / fx.plan.tasks.length;
  const hallucinationAtTask = pairs.length === 0 ? 0 : (h * 0.5 * pairsAtTask) / pairs.length;
  const hallucinationFamily: Family = "unsafe_sequencing";
  const noiseHit = 1 - (1 - inflationAtTask / 4) * (1 - (defect.family === hallucinationFamily ? hallucinationAtTask : 0));
  return {
    seeded: true,
    block,
    checkable: r + h,
    unsupported: h,
    migrated: r * mu * (1 - noiseHit),
    detected: 1 - m * (1 - inflationAtTask) * (1 - hallucinationAtTask),
  };
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

/**
 * The analytic value of each recovered metric on a fixture set, at the same number of counted
 * trials per item (unavailable trials are rare and independent of the content draws, README
 * "Seeding", so they do not move an expectation):
 * - label_flip_rate: mean over items of E[Q_i] = 2p(1 − p), p = P(block) (README: Q is unbiased
 *   for 2b(1 − b) at any N ≥ 2);
 * - critic_miss_rate: mean over seeded items (a correct critic blocks each) of 1 − P(block);
 * - family_migration_rate, unsupported_evidence_rate: ratios of sums over (trial, item), so the
 *   value they estimate is the ratio of the expected sums (the clustered ratio estimator is
 *   consistent for it; its O(1/n) bias is far inside the interval).
 */
export function analyticValues(fixtures: readonly Fixture[], critic: SimProfile["critic"]): Record<RecoveryMetric, number> {
  const items = fixtures.map((fx) => itemExpectation(fx, critic));
  const seeded = items.filter((it) => it.seeded);
  return {
    label_flip_rate: mean(items.map((it) => 2 * it.block * (1 - it.block))),
    critic_miss_rate: mean(seeded.map((it) => 1 - it.block)),
    family_migration_rate: sum(seeded.map((it) => it.migrated)) / sum(seeded.map((it) => it.detected)),
    unsupported_evidence_rate: sum(items.map((it) => it.unsupported)) / sum(items.map((it) => it.checkable)),
  };
}
