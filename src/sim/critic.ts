import { BLOCKER_ELIGIBLE_FAMILIES, type Family } from "../formats/enums.ts";
import type { CriticOutput, GateCode, GateFinding } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";
import { graphOf, type PlanGraph } from "../graph/plan-graph.ts";
import { chance, pickIndex, type Rng } from "../stats/random.ts";
import type { SimExtra } from "./extra.ts";
import type { SimProfile } from "./profile.ts";

type CriticFinding = CriticOutput["findings"][number];
type Claim = CriticFinding["evidence"];

/** A defect the sim critic can see: through a gate, or through a fixture's seeded ground truth. */
interface PerceivedDefect {
  family: Family;
  task_id: string | null;
  claim: Claim;
}

export type GateRunner = (goal: Goal, plan: Plan) => GateFinding[];

/** Where an advisory-family report of a real defect goes (docs/design.md §5: not blocker-eligible). */
const MIGRATION_FAMILIES = ["risk", "missing_steps"] as const;

const VERIFICATION_ORDER_CODES: ReadonlySet<string> = new Set<GateCode>([
  "verification_reads_stale_state",
  "verification_precedes_mutation",
  "verification_ignores_output",
]);

/** The first precondition fact of t that neither the environment nor an earlier task provides. */
function unestablishedFact(goal: Goal, g: PlanGraph, taskId: string): string | undefined {
  const pos = g.pos(taskId);
  const task = g.task(taskId);
  if (pos === undefined || !task) return undefined;
  return task.preconditions.map((p) => p.fact).find((f) => !goal.constraints.facts.includes(f) && !g.anyRunsBefore(g.whoEstablishes(f), pos));
}

/** The evidence a careful critic gives for a gate's finding (docs/design.md §5 claims); `other` when none fits. */
function claimForGateFinding(goal: Goal, g: PlanGraph, f: GateFinding): Claim {
  const t = f.task_id;
  const other: Claim = { claim: "other", tasks: t ? [t] : [], facts: [] };
  if (!t) return other;
  if (f.code === "verification_missing") return { claim: "missing_verification", tasks: [t], facts: [] };
  if (f.code === "rollback_missing") return { claim: "missing_rollback", tasks: [t], facts: [] };
  if (f.code === "rollback_inconsistent_state") return { claim: "partial_restore", tasks: [t], facts: [] };
  if (f.code === "precondition_unestablished") {
    const fact = unestablishedFact(goal, g, t);
    return fact ? { claim: "unestablished_fact", tasks: [t], facts: [fact] } : other;
  }
  const verified = g.task(t)?.verifies?.task;
  if (VERIFICATION_ORDER_CODES.has(f.code) && verified) return { claim: "verification_misordered", tasks: [t, verified], facts: [] };
  return other;
}

/**
 * What the critic perceives: a fixture's seeded defects (ground truth, gate-visible or not), plus
 * every gate finding not already covered by a seeded defect of the same family and task.
 */
function perceive(extra: SimExtra, plan: Plan, runGates: GateRunner): PerceivedDefect[] {
  const g = graphOf(plan);
  const seeded: PerceivedDefect[] = (extra.fixture?.seeded_defects ?? []).map((d) => ({
    family: d.family,
    task_id: d.task,
    claim: { claim: d.claim.kind, tasks: d.claim.tasks.length > 0 ? d.claim.tasks : [d.task], facts: d.claim.facts },
  }));
  const covered = new Set(seeded.map((d) => `${d.family}:${d.task_id}`));
  const gated = runGates(extra.goal, plan)
    .filter((f) => !covered.has(`${f.family}:${f.task_id}`))
    .map((f) => ({ family: f.family, task_id: f.task_id, claim: claimForGateFinding(extra.goal, g, f) }));
  return [...seeded, ...gated];
}

function report(family: string, d: { task_id: string | null; claim: Claim }, message: string, fix: string): CriticFinding {
  return { family, severity: "blocker", task_id: d.task_id, message, suggested_fix: fix, evidence: d.claim };
}

/** A task id the plan does not have. */
function missingTaskId(plan: Plan): string {
  const ids = new Set(plan.tasks.map((t) => t.id));
  let id = "rollback_dry_run";
  while (ids.has(id)) id += "_x";
  return id;
}

/**
 * A hallucinated blocker: half the time a claimed order that the plan contradicts (misordered
 * [a, b] where b runs before a), otherwise a missing rollback on a task the plan does not have.
 */
function hallucination(plan: Plan, rng: Rng): CriticFinding {
  const g = graphOf(plan);
  const pairs = plan.tasks.slice(1).flatMap((t, i) => (g.runsBeforePos(i, i + 1) ? [[t.id, plan.tasks[i]!.id] as const] : []));
  const contradictOrder = chance(rng, 0.5);
  const pair = pairs[pickIndex(rng, Math.max(pairs.length, 1))];
  if (contradictOrder && pair) {
    const [a, b] = pair;
    return report(
      "unsafe_sequencing",
      { task_id: a, claim: { claim: "misordered", tasks: [a, b], facts: [] } },
      `${a} does not wait for ${b}.`,
      `Run ${b} before ${a}.`,
    );
  }
  const ghost = missingTaskId(plan);
  return report(
    "weak_rollback",
    { task_id: ghost, claim: { claim: "missing_rollback", tasks: [ghost], facts: [] } },
    `${ghost} has no rollback.`,
    `Add a rollback to ${ghost}.`,
  );
}

/**
 * The sim critic's audit. Per perceived defect: a miss draw (miss_rate of its family), a migration
 * draw and a pick of the advisory family. Per audit: one inflation draw (an uncheckable concern
 * in a blocker-eligible family, raised to blocker) and one hallucination draw. Every draw is made
 * whatever its outcome, so one parameter never shifts another's stream.
 */
export function simCriticOutput(extra: SimExtra, rng: Rng, profile: SimProfile["critic"], runGates: GateRunner): CriticOutput {
  const plan = extra.plan;
  if (!plan) throw new Error("the sim critic needs the plan under review (the request's extra.plan)");
  const findings: CriticFinding[] = [];
  for (const d of perceive(extra, plan, runGates)) {
    const missed = chance(rng, profile.miss_rate[d.family]);
    const migrated = chance(rng, profile.migration_rate);
    const advisory = MIGRATION_FAMILIES[pickIndex(rng, MIGRATION_FAMILIES.length)]!;
    if (missed) continue;
    const where = d.task_id ?? "the plan";
    findings.push(report(migrated ? advisory : d.family, d, `${d.claim.claim.replace(/_/g, " ")} at ${where}.`, `Fix ${where} before approval.`));
  }
  const inflate = chance(rng, profile.severity_inflation_rate);
  const family = BLOCKER_ELIGIBLE_FAMILIES[pickIndex(rng, BLOCKER_ELIGIBLE_FAMILIES.length)]!;
  const task = plan.tasks[pickIndex(rng, plan.tasks.length)]?.id ?? null;
  if (inflate) {
    findings.push(
      report(
        family,
        { task_id: task, claim: { claim: "other", tasks: task ? [task] : [], facts: [] } },
        `I am not comfortable with ${task ?? "this plan"}; it deserves a closer look.`,
        "Add more safeguards.",
      ),
    );
  }
  if (chance(rng, profile.hallucination_rate)) findings.push(hallucination(plan, rng));
  return { findings };
}
