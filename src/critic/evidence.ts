import type { CriticEvidence, EvidenceStatus } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan, Task } from "../formats/plan.ts";
import { graphOf, type PlanGraph } from "../graph/plan-graph.ts";
import { rollbackRequirementProvided } from "../gates/rollback-credibility.ts";
import { verificationOrder } from "../gates/verification-order.ts";

interface EvidenceVerdict {
  status: EvidenceStatus;
  reason: string;
}

/** What a critic finding offers for checking: the task it sits on and its structured evidence. */
interface EvidenceSubject {
  task_id: string | null;
  evidence: CriticEvidence | null;
  /**
   * Task references the critic wrote that these fields cannot hold: a `task_id` that is not a
   * string, the `tasks` of evidence of another shape. Still references: a ghost among them is an
   * unsupported reference, and one that is not a string names no task at all.
   */
  strayReferences?: readonly unknown[];
}

const verdict = (status: EvidenceStatus, reason: string): EvidenceVerdict => ({ status, reason });

interface ClaimInput {
  goal: Goal;
  plan: Plan;
  graph: PlanGraph;
  /** evidence.tasks, all of them tasks of the plan (unsupported references are caught first). */
  tasks: Task[];
  facts: string[];
}

interface ClaimRule {
  /** How many task ids and fact names the claim takes; any other count is uncheckable. */
  tasks: number;
  facts: number;
  check(input: ClaimInput): EvidenceVerdict;
}

const isOutputCheckOf = (v: Task, t: Task) => v.kind === "verify" && v.verifies?.task === t.id && v.verifies.subject === "mutation_output";

/** The evidence table of docs/design.md §5, one rule per claim kind. */
const CLAIMS: Record<string, ClaimRule> = {
  misordered: {
    tasks: 2,
    facts: 0,
    check: ({ graph, tasks: [a, b] }) => {
      if (graph.runsBefore(b!.id, a!.id)) return verdict("contradicted", `${b!.id} already runs before ${a!.id}`);
      if (graph.dependsOn(a!.id, b!.id)) return verdict("supported", `${a!.id} depends on ${b!.id} but does not run after it`);
      return verdict("uncheckable", `the plan does not record that ${a!.id} depends on ${b!.id}`);
    },
  },
  missing_rollback: {
    tasks: 1,
    facts: 0,
    check: ({ tasks: [t] }) => {
      if (t!.kind !== "mutate") return verdict("contradicted", `${t!.id} is not a mutate task`);
      if (t!.rollback) return verdict("contradicted", `${t!.id} has a rollback`);
      return verdict("supported", `mutate task ${t!.id} has no rollback`);
    },
  },
  missing_verification: {
    tasks: 1,
    facts: 0,
    check: ({ plan, tasks: [t] }) => {
      if (t!.kind !== "mutate") return verdict("contradicted", `${t!.id} is not a mutate task`);
      const check = plan.tasks.find((v) => isOutputCheckOf(v, t!));
      if (check) return verdict("contradicted", `${check.id} checks the output of ${t!.id}`);
      return verdict("supported", `no verify task checks the output of ${t!.id}`);
    },
  },
  unestablished_fact: {
    tasks: 1,
    facts: 1,
    check: ({ goal, graph, tasks: [t], facts: [f] }) => {
      const precondition = t!.preconditions.some((p) => p.fact === f);
      const requirement = t!.rollback?.requires.includes(f!) ?? false;
      if (!precondition && !requirement) return verdict("uncheckable", `the plan does not record that ${t!.id} needs "${f}"`);
      const pos = graph.pos(t!.id)!;
      const goalFact = goal.constraints.facts.includes(f!);
      const establisher = graph.whoEstablishes(f!).find((p) => graph.runsBeforePos(p, pos));
      if (precondition && !goalFact && establisher === undefined)
        return verdict("supported", `${t!.id} needs "${f}": it is not a goal fact, and no task establishes it before ${t!.id} runs`);
      // A rollback requirement is judged by the gate's own predicate: the critic and the gate cannot disagree on it.
      if (requirement && !rollbackRequirementProvided(goal, graph, pos, f!))
        return verdict(
          "supported",
          `the rollback of ${t!.id} requires "${f}", which nothing provides: not a goal fact, not established or produced before ${t!.id} runs, not mutated or destroyed by any task`,
        );
      if (goalFact) return verdict("contradicted", `"${f}" is a goal fact`);
      if (establisher !== undefined) return verdict("contradicted", `${graph.tasks[establisher]!.id} establishes "${f}" before ${t!.id} runs`);
      return verdict(
        "contradicted",
        `the rollback of ${t!.id} requires "${f}", which a task produces before ${t!.id} runs, or mutates or destroys: rollback_requires_unestablished accepts it`,
      );
    },
  },
  rollback_requires_destroyed: {
    tasks: 1,
    facts: 1,
    check: ({ graph, tasks: [t], facts: [r] }) => {
      const rb = t!.rollback;
      if (!rb?.requires.includes(r!)) return verdict("contradicted", `the rollback of ${t!.id} does not require "${r}"`);
      if (t!.destroys.includes(r!)) return verdict("supported", `${t!.id} destroys "${r}", which its own rollback requires`);
      const pos = graph.pos(t!.id)!;
      const trigger = graph.pos(rb.trigger);
      const consumer = trigger === undefined ? undefined : graph.whoDestroys(r!).find((p) => graph.runsBeforePos(pos, p) && graph.runsBeforePos(p, trigger));
      if (consumer !== undefined) return verdict("supported", `${graph.tasks[consumer]!.id} destroys "${r}" before the rollback trigger ${rb.trigger} runs`);
      return verdict("contradicted", `nothing destroys "${r}" between ${t!.id} and its rollback trigger`);
    },
  },
  partial_restore: {
    tasks: 1,
    facts: 0,
    check: ({ tasks: [t] }) => {
      const rb = t!.rollback;
      if (!rb) return verdict("contradicted", `${t!.id} has no rollback`);
      const missed = t!.mutates.filter((m) => !rb.restores.includes(m));
      if (missed.length > 0) return verdict("supported", `the rollback of ${t!.id} does not restore ${missed.join(", ")}`);
      return verdict("contradicted", `the rollback of ${t!.id} restores everything it mutates`);
    },
  },
  verification_misordered: {
    tasks: 2,
    facts: 0,
    check: ({ goal, plan, graph, tasks: [v, t] }) => {
      if (v!.kind !== "verify" || v!.verifies?.task !== t!.id) return verdict("contradicted", `${v!.id} does not verify ${t!.id}`);
      const codes = verificationOrder(goal, plan, graph)
        .filter((f) => f.task_id === v!.id)
        .map((f) => f.code);
      if (codes.length > 0) return verdict("supported", `verification_order reports ${codes.join(", ")} for ${v!.id}`);
      return verdict("contradicted", `verification_order reports nothing for ${v!.id}`);
    },
  },
  tool_unavailable: {
    tasks: 1,
    facts: 1,
    check: ({ goal, facts: [tool] }) => {
      if (goal.constraints.tools.includes(tool!)) return verdict("contradicted", `"${tool}" is one of the goal's tools`);
      return verdict("uncheckable", "the plan does not record which tools a task uses");
    },
  },
};

/**
 * Check a critic finding's evidence against the plan (docs/design.md §5). Pure. A reference to a task
 * the plan does not have outranks everything; otherwise the claim's own rule decides, and a claim
 * the table does not know, or with the wrong number of tasks or facts, is uncheckable.
 */
export function checkEvidence(goal: Goal, plan: Plan, finding: EvidenceSubject): EvidenceVerdict {
  const graph = graphOf(plan);
  const { task_id, evidence } = finding;
  const cited: unknown[] = [...(task_id === null ? [] : [task_id]), ...(evidence?.tasks ?? []), ...(finding.strayReferences ?? [])];
  const missing = cited.filter((id) => typeof id !== "string" || !graph.has(id)).map((id) => (typeof id === "string" ? id : JSON.stringify(id)));
  if (missing.length > 0) return verdict("unsupported_reference", `not a task of the plan: ${[...new Set(missing)].join(", ")}`);
  if (!evidence) return verdict("uncheckable", "the finding carries no evidence");
  const rule = Object.hasOwn(CLAIMS, evidence.claim) ? CLAIMS[evidence.claim] : undefined;
  if (!rule) return verdict("uncheckable", `claim "${evidence.claim}" is not checkable`);
  if (evidence.tasks.length !== rule.tasks || evidence.facts.length !== rule.facts)
    return verdict(
      "uncheckable",
      `claim "${evidence.claim}" takes ${rule.tasks} task(s) and ${rule.facts} fact(s), got ${evidence.tasks.length} and ${evidence.facts.length}`,
    );
  const tasks = evidence.tasks.map((id) => graph.task(id)!);
  return rule.check({ goal, plan, graph, tasks, facts: evidence.facts });
}
