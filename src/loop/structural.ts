import { canonicalJson, sha256 } from "../canonical.ts";
import type { Plan } from "../formats/plan.ts";

/** The tasks without their prose (`description`, `rollback.action`). */
function structuralTasks(plan: Plan): unknown[] {
  return plan.tasks.map(({ description: _prose, rollback, ...task }) => {
    if (!rollback) return task;
    const { action: _action, ...structure } = rollback;
    return { ...task, rollback: structure };
  });
}

/** The dependencies as a set (§3: order means nothing, duplicates count once): their canonical texts, deduplicated and sorted. */
const dependencyTexts = (plan: Plan): string[] => [...new Set(plan.dependencies.map((d) => canonicalJson(d)))].sort();

/**
 * A plan's structural content (docs/design.md §6): its tasks and dependencies without the prose
 * and without the plan header (`id`, `version`, `parent_id`). Two plans with equal content
 * behave identically under every gate.
 */
export function structuralContent(plan: Plan): { tasks: unknown[]; dependencies: unknown[] } {
  return { tasks: structuralTasks(plan), dependencies: dependencyTexts(plan).map((d) => JSON.parse(d) as unknown) };
}

/**
 * SHA-256 of the structural content: the stall and oscillation detectors compare these. It is
 * `hashCanonical(structuralContent(plan))`, without reading the dependencies back: their canonical
 * texts, sorted and deduplicated, are the canonical text of their array.
 */
export function structuralHash(plan: Plan): string {
  return sha256(`{"dependencies":[${dependencyTexts(plan).join(",")}],"tasks":${canonicalJson(structuralTasks(plan))}}`);
}
