import type { GateFinding } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { PlanGraph } from "../graph/plan-graph.ts";
import { gateFinding, listIds, type Gate } from "./finding.ts";

/**
 * Does something provide `item`, a rollback requirement of the task at `pos` (docs/design.md §4,
 * `rollback_requires_unestablished`)? A goal fact; established or produced by a task that runs
 * before it; or named in the mutates or destroys of any task (then it is a resource of the plan's
 * world). The critic's `unestablished_fact` claim on a rollback requirement asks exactly this
 * (§5), so a claim the gate accepts is contradicted.
 */
export function rollbackRequirementProvided(goal: Goal, graph: PlanGraph, pos: number, item: string): boolean {
  return (
    goal.constraints.facts.includes(item) ||
    graph.anyRunsBefore(graph.whoEstablishes(item), pos) ||
    graph.anyRunsBefore(graph.whoProduces(item), pos) ||
    graph.whoMutates(item).length > 0 ||
    graph.whoDestroys(item).length > 0
  );
}

/**
 * Gate `rollback_credibility`: a rollback that exists but could not work. It must be started by an
 * output check of this task that runs after it; what it requires must exist before the task starts
 * (and not be destroyed by the task itself or by anything before the trigger); and it must restore
 * everything the task mutates. A trigger that names no task is schema_valid's to report.
 */
export const rollbackCredibility: Gate = (goal, plan, graph) => {
  const out: GateFinding[] = [];
  plan.tasks.forEach((t, i) => {
    const rb = t.rollback;
    if (t.kind !== "mutate" || !rb) return;
    const trigger = graph.rollbackTrigger[i]!;
    if (trigger !== -1) {
      const v = graph.tasks[trigger]!;
      const targetsThis = v.kind === "verify" && v.verifies?.subject === "mutation_output" && graph.verifiesTarget[trigger] === i;
      if (!targetsThis || !graph.runsBeforePos(i, trigger))
        out.push(
          gateFinding(
            "rollback_unreachable",
            t.id,
            rb.trigger,
            `the rollback of ${t.id} is triggered by ${rb.trigger}, which is not an output check of ${t.id} that runs after it`,
          ),
        );
    }
    rb.requires.forEach((item, k) => {
      if (rb.requires.indexOf(item) !== k) return; // a repeated item is judged once
      if (t.destroys.includes(item))
        out.push(gateFinding("rollback_self_dependent", t.id, item, `the rollback of ${t.id} requires "${item}", which ${t.id} itself destroys`));
      const destroyers = graph.whoDestroys(item);
      if (trigger !== -1 && destroyers.length > 0) {
        const consumers = destroyers.filter((p) => graph.runsBeforePos(i, p) && graph.runsBeforePos(p, trigger));
        if (consumers.length > 0) {
          const ids = consumers.map((p) => graph.tasks[p]!.id);
          out.push(
            gateFinding(
              "rollback_post_consumed",
              t.id,
              item,
              `the rollback of ${t.id} requires "${item}", which ${listIds(ids)} destroy${ids.length > 1 ? "" : "s"} before the trigger ${rb.trigger} runs`,
            ),
          );
        }
      }
      if (!rollbackRequirementProvided(goal, graph, i, item))
        out.push(
          gateFinding("rollback_requires_unestablished", t.id, item, `the rollback of ${t.id} requires "${item}", which nothing provides before ${t.id} runs`),
        );
    });
    t.mutates.forEach((item, k) => {
      if (t.mutates.indexOf(item) === k && !rb.restores.includes(item))
        out.push(gateFinding("rollback_inconsistent_state", t.id, item, `${t.id} mutates "${item}" but its rollback does not restore it`));
    });
  });
  return out;
};
