import { canonicalJson, hashCanonical } from "../canonical.ts";
import type { Plan } from "../formats/plan.ts";

/**
 * A plan's structural content (DESIGN.md §6): its tasks and dependencies without the prose
 * (`description`, `rollback.action`) and without the plan header (`id`, `version`, `parent_id`).
 * Two plans with equal content behave identically under every gate. Dependencies are a set:
 * their order means nothing and duplicates count once (§3), so they are sorted and deduplicated.
 */
export function structuralContent(plan: Plan): { tasks: unknown[]; dependencies: unknown[] } {
  const tasks = plan.tasks.map(({ description: _prose, rollback, ...task }) => {
    if (!rollback) return task;
    const { action: _action, ...structure } = rollback;
    return { ...task, rollback: structure };
  });
  const dependencies = [...new Set(plan.dependencies.map((d) => canonicalJson(d)))].sort().map((d) => JSON.parse(d) as unknown);
  return { tasks, dependencies };
}

/** SHA-256 of the structural content: the stall and oscillation detectors compare these. */
export function structuralHash(plan: Plan): string {
  return hashCanonical(structuralContent(plan));
}
