import type { Goal } from "../formats/goal.ts";
import { isHighBlast, type AttributeValue, type Plan, type Task } from "../formats/plan.ts";
import type { AttributeDecl, AttributeType } from "./schema.ts";
import { T, type CelType } from "./types.ts";

/**
 * What a pack rule sees: the goal and the plan without their prose (no title, no description, no
 * rollback action, no plan id or version), so that no wording can move a pack finding, plus three
 * derived facts per task: `index` (list position), `step` (tasks of one parallel group share a
 * step; "a runs before b" is `a.step < b.step`) and `high_blast` (docs/design.md §3); and per plan
 * `first_step`, the step of the first task of each kind present. Absent optional
 * values are null, absent lists are []. A task's `attributes` hold exactly the attributes the pack
 * declares: null (a string_list: []) when the task does not set one.
 */

const ATTRIBUTE_CEL_TYPES: Record<AttributeType, CelType> = {
  string: T.nullable(T.string),
  number: T.nullable(T.double),
  boolean: T.nullable(T.bool),
  string_list: T.list(T.string),
};

const strings = T.list(T.string);
const nullableString = T.nullable(T.string);

/** The static types of `goal`, `plan` and `task` for a pack that declares `attributes`. */
export function viewTypes(attributes: Readonly<Record<string, AttributeDecl>>): { goal: CelType; plan: CelType; task: CelType } {
  const task = T.object("task", {
    id: T.string,
    kind: T.string,
    target: nullableString,
    risk: T.string,
    blast_radius: T.string,
    reversibility: T.string,
    high_blast: T.bool,
    parallel_group: nullableString,
    index: T.int,
    step: T.int,
    preconditions: T.list(T.object("task.preconditions[]", { fact: T.string, established_by: nullableString })),
    establishes: strings,
    produces: strings,
    mutates: strings,
    destroys: strings,
    verifies: T.nullable(T.object("task.verifies", { task: T.string, subject: T.string, reads: strings })),
    rollback: T.nullable(T.object("task.rollback", { trigger: T.string, requires: strings, restores: strings })),
    attributes: T.object("task.attributes", Object.fromEntries(Object.entries(attributes).map(([name, d]) => [name, ATTRIBUTE_CEL_TYPES[d.type]]))),
  });
  const plan = T.object("plan", {
    goal_id: T.string,
    tasks: T.list(task),
    dependencies: T.list(T.object("plan.dependencies[]", { from: T.string, to: T.string, kind: T.string })),
    first_step: T.map(T.string, T.int),
  });
  const goal = T.object("goal", {
    id: T.string,
    domain: T.string,
    risk_tolerance: T.string,
    replan_policy: T.string,
    constraints: T.object("goal.constraints", { environment: nullableString, tools: strings, facts: strings, max_revisions: T.nullable(T.int) }),
  });
  return { goal, plan, task };
}

type CelRecord = Record<string, unknown>;

/** An attribute value the plan gives with another type than the pack declares. */
interface MistypedAttribute {
  task_id: string;
  name: string;
  declared: AttributeType;
  value: AttributeValue;
}

function hasType(value: AttributeValue, type: AttributeType): boolean {
  if (type === "string_list") return Array.isArray(value);
  return typeof value === type;
}

function attributesOf(t: Task, declared: Readonly<Record<string, AttributeDecl>>, mistyped: MistypedAttribute[]): CelRecord {
  const out: CelRecord = {};
  for (const [name, decl] of Object.entries(declared)) {
    const value = t.attributes?.[name];
    const fits = value !== undefined && hasType(value, decl.type);
    if (value !== undefined && !fits) mistyped.push({ task_id: t.id, name, declared: decl.type, value });
    out[name] = fits ? value : decl.type === "string_list" ? [] : null;
  }
  return out;
}

interface PlanView {
  goal: CelRecord;
  plan: CelRecord;
  /** The task views in list order (the same objects as `plan.tasks`). */
  tasks: CelRecord[];
  /** Attribute values that do not have their declared type: they read as absent, and the pack reports them. */
  mistyped: MistypedAttribute[];
}

/** Build the prose-free view of (goal, plan) for a pack that declares `attributes`. Pure. */
export function planView(goal: Goal, plan: Plan, attributes: Readonly<Record<string, AttributeDecl>>): PlanView {
  const mistyped: MistypedAttribute[] = [];
  let step = -1;
  const tasks = plan.tasks.map((t, i) => {
    const group = t.parallel_group;
    if (i === 0 || group === undefined || plan.tasks[i - 1]!.parallel_group !== group) step++;
    return {
      id: t.id,
      kind: t.kind,
      target: t.target ?? null,
      risk: t.risk,
      blast_radius: t.blast_radius,
      reversibility: t.reversibility,
      high_blast: isHighBlast(t),
      parallel_group: group ?? null,
      index: BigInt(i),
      step: BigInt(step),
      preconditions: t.preconditions.map((p) => ({ fact: p.fact, established_by: p.established_by ?? null })),
      establishes: t.establishes,
      produces: t.produces,
      mutates: t.mutates,
      destroys: t.destroys,
      verifies: t.verifies ? { task: t.verifies.task, subject: t.verifies.subject, reads: t.verifies.reads } : null,
      rollback: t.rollback ? { trigger: t.rollback.trigger, requires: t.rollback.requires, restores: t.rollback.restores } : null,
      attributes: attributesOf(t, attributes, mistyped),
    };
  });
  // The step of the first task of each kind: "a notify, then a wait, before this task" is one pass over the plan, not a nested one.
  const firstStep: Record<string, bigint> = {};
  for (const t of tasks) firstStep[t.kind] ??= t.step;
  const c = goal.constraints;
  return {
    goal: {
      id: goal.id,
      domain: goal.domain,
      risk_tolerance: goal.risk_tolerance,
      replan_policy: goal.replan_policy,
      constraints: { environment: c.environment ?? null, tools: c.tools, facts: c.facts, max_revisions: c.max_revisions === undefined ? null : BigInt(c.max_revisions) },
    },
    plan: { goal_id: plan.goal_id, tasks, dependencies: plan.dependencies.map((d) => ({ from: d.from, to: d.to, kind: d.kind })), first_step: firstStep },
    tasks,
    mistyped,
  };
}
