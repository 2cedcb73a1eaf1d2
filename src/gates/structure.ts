import { formatPath } from "../formats/load.ts";
import type { Goal } from "../formats/goal.ts";
import { TASK_ID_PATTERN, type Plan } from "../formats/plan.ts";
import { graphOf } from "../graph/plan-graph.ts";
import { gateFinding, type Gate } from "./finding.ts";

/** One broken structural rule of docs/design.md §3, located by key path. */
export interface StructuralViolation {
  /** `tasks[3].verifies`, `dependencies[2].to`, `goal_id`. */
  path: string;
  /** The same path as segments, for looking up its line in a source file. */
  segments: (string | number)[];
  code: "schema_invalid";
  task_id: string | null;
  message: string;
  /** What the violation is about, independent of list positions in `dependencies` (the finding key's detail). */
  detail: string;
}

/**
 * The structural rules of docs/design.md §3 (everything the zod schema cannot say alone), in the order
 * of the plan's fields. A plan file breaking any of them is invalid input; inside the loop each
 * becomes a `schema_invalid` blocker.
 */
export function structuralViolations(goal: Goal, plan: Plan): StructuralViolation[] {
  const out: StructuralViolation[] = [];
  const graph = graphOf(plan);
  /** `rule` keeps two violations of one field apart; dependencies are named by edge, not index. */
  const add = (segments: (string | number)[], taskId: string | null, rule: string, message: string) => {
    const path = formatPath(segments);
    const [list, k] = segments;
    const d = list === "dependencies" ? plan.dependencies[k as number] : undefined;
    const where = d ? `dependency ${d.from}->${d.to}.${String(segments[2])}` : path;
    out.push({ path, segments, code: "schema_invalid", task_id: taskId, message, detail: `${where}#${rule}` });
  };

  if (plan.goal_id !== goal.id) add(["goal_id"], null, "goal", `is "${plan.goal_id}" but the goal's id is "${goal.id}"`);
  if (plan.tasks.length === 0) add(["tasks"], null, "nonempty", "a plan needs at least one task");

  const groupClosed = new Set<string>();
  const duplicates = new Set(graph.duplicatePositions);
  // Plain loops without per-task closures: this runs on every plan of every round.
  for (let i = 0; i < plan.tasks.length; i++) {
    const t = plan.tasks[i]!;
    if (duplicates.has(i)) add(["tasks", i, "id"], t.id, "unique", `duplicate task id "${t.id}"`);
    if (!TASK_ID_PATTERN.test(t.id)) add(["tasks", i, "id"], t.id, "pattern", `task id "${t.id}" must match ^[a-z0-9][a-z0-9_.-]*$`);
    else if (t.id === "env") add(["tasks", i, "id"], t.id, "reserved", `"env" is reserved and cannot be a task id`);

    for (let j = 0; j < t.preconditions.length; j++) {
      const by = t.preconditions[j]!.established_by;
      if (by !== undefined && by !== "env" && !graph.has(by))
        add(["tasks", i, "preconditions", j, "established_by"], t.id, "dangling", `"${by}" names no task of the plan (nor env)`);
    }

    if (t.kind === "verify" && !t.verifies) add(["tasks", i, "verifies"], t.id, "required", "a verify task needs verifies");
    if (t.kind !== "verify" && t.verifies) add(["tasks", i, "verifies"], t.id, "verify_only", `only a verify task may have verifies (this task is ${t.kind})`);
    if (t.verifies) {
      const target = graph.verifiesTarget[i]!;
      const named = t.verifies.task;
      if (target === -1) add(["tasks", i, "verifies", "task"], t.id, "dangling", `"${named}" names no task of the plan`);
      else if (graph.tasks[target]!.kind !== "mutate")
        add(["tasks", i, "verifies", "task"], t.id, "mutate_only", `"${named}" is a ${graph.tasks[target]!.kind} task; verifies.task must name a mutate task`);
    }

    if (t.rollback) {
      if (t.kind !== "mutate") add(["tasks", i, "rollback"], t.id, "mutate_only", `only a mutate task may have rollback (this task is ${t.kind})`);
      if (graph.rollbackTrigger[i] === -1) add(["tasks", i, "rollback", "trigger"], t.id, "dangling", `"${t.rollback.trigger}" names no task of the plan`);
    }

    // A group is contiguous when no task of it appears after the group was left.
    const prev = plan.tasks[i - 1]?.parallel_group;
    if (prev !== undefined && prev !== t.parallel_group) groupClosed.add(prev);
    if (t.parallel_group !== undefined && groupClosed.has(t.parallel_group))
      add(["tasks", i, "parallel_group"], t.id, "contiguous", `the tasks of parallel group "${t.parallel_group}" must be contiguous in the list`);
  }

  for (let k = 0; k < plan.dependencies.length; k++) {
    const d = plan.dependencies[k]!;
    const owner = graph.depTo[k] !== -1 ? d.to : null;
    if (graph.depFrom[k] === -1) add(["dependencies", k, "from"], owner, "dangling", `"${d.from}" names no task of the plan`);
    if (graph.depTo[k] === -1) add(["dependencies", k, "to"], null, "dangling", `"${d.to}" names no task of the plan`);
    else if (d.from === d.to) add(["dependencies", k, "to"], owner, "self", "a task cannot depend on itself");
  }
  return out;
}

/** Gate `schema_valid`: every structural violation as a `schema_invalid` blocker (it asks the same cached graph). */
export const schemaValid: Gate = (goal, plan) =>
  structuralViolations(goal, plan).map((v) =>
    // The message names dependencies by edge, not index, so reordering the list changes nothing.
    gateFinding("schema_invalid", v.task_id, v.detail, `${v.detail.split("#")[0]}: ${v.message}`),
  );
