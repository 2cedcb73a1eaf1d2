import type { Goal } from "../../src/formats/goal.ts";
import type { GOAL_FORMATS } from "./manifest.ts";

/**
 * What the engine is told of a goal, in the format its manifest names. It is the goal the
 * planner sees (docs/design.md §2), never the corpus expectation that judges the result. Pure.
 */
export function engineGoal(format: (typeof GOAL_FORMATS)[number], goal: Goal): unknown {
  return format === "fieldtest" ? goal : plannerCriticGoal(goal);
}

/**
 * The goal as PlannerCritic 0.1.0 reads one (its `Goal` model): the title leads the description,
 * which also carries the facts that hold before any task runs (its model has no field for them);
 * its budget counts rounds where fieldtest counts revisions.
 */
function plannerCriticGoal(goal: Goal): unknown {
  const { facts, tools, environment, max_revisions } = goal.constraints;
  const description = [goal.title, goal.description, ...(facts.length > 0 ? [`Facts that hold before any task runs: ${facts.join(", ")}.`] : [])].join("\n\n");
  return {
    id: goal.id,
    description,
    constraints: {
      ...(environment === undefined ? {} : { environment }),
      tools,
      ...(max_revisions === undefined ? {} : { budget: { max_revisions: max_revisions + 1 } }),
    },
    risk_tolerance: goal.risk_tolerance,
    replan_policy: goal.replan_policy,
    metadata: { domain: goal.domain, source: "fieldtest" },
  };
}
