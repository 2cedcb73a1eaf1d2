import { canonicalJson, sha256 } from "../canonical.ts";
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

/**
 * SHA-256 of the structural content: the stall and oscillation detectors compare these. It is
 * `hashCanonical(structuralContent(plan))`, without reading the dependencies back: their canonical
 * texts, sorted and deduplicated, are the canonical text of their array.
 */
export function structuralHash(plan: Plan): string {
  const { tasks } = structuralContent({ ...plan, dependencies: [] });
  const dependencies = [...new Set(plan.dependencies.map((d) => canonicalJson(d)))].sort();
  return sha256(`{"dependencies":[${dependencies.join(",")}],"tasks":${canonicalJson(tasks)}}`);
}
