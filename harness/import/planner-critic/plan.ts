import { LEVELS, type Level } from "../../../src/formats/enums.ts";
import type { Plan, Precondition, Task } from "../../../src/formats/plan.ts";
import { note, type ConversionNote } from "./notes.ts";
import type { PredecessorPlan, PredecessorTask } from "./schema.ts";

/**
 * The fixed rules of the plan conversion (docs/guides/importing.md). They hold for
 * every imported plan, so they are stated once per trial; the notes name the specific tasks.
 */
export const PLAN_CONVERSION_RULES: readonly string[] = [
  "kind: the predecessor has no task kind; every task is imported as mutate (its gates judged every task as a possible change)",
  "reversibility: the predecessor has no irreversibility marker; every task is imported as reversible",
  "mutates/destroys/produces: not recorded by the predecessor; imported empty",
  "establishes: derived from the plan's own established_by references (a precondition fact F established_by task A makes A establish F)",
  "established_by env, environment, system, infra or env:<x> becomes env; the imported goal declares no facts, so such a precondition fails preconditions_closed",
  "verification: an inline verification {what, how, expected} becomes a synthetic verify task <task>.verify, listed right after the task (after its parallel group), subject mutation_output, reads [] (not recorded); a gate finding on a synthetic task rests on the translation alone, so it is set aside (the round's translated.gate_findings), never a blocker",
  "rollback: trigger becomes the synthetic verify task (or the task itself when it has none, so rollback_unreachable fires); action keeps the prose with the safety guard; requires and restores are not recorded and imported empty",
  "dropped: task action verbs, precondition descriptions and probes, dependency reasons, branches, plan_schema_version, created_at",
];

const ENV_ALIASES = new Set(["env", "environment", "system", "infra"]);

interface ConvertedPlan {
  plan: Plan;
  notes: ConversionNote[];
  /** The ids of the predecessor's own tasks (synthetic verify tasks excluded): the names a critic could use. */
  originalTaskIds: string[];
  /** The synthetic verify tasks the conversion invented, in plan order. */
  inventedTaskIds: string[];
}

/** A predecessor PlanVersion in docs/design.md §3 form. Pure. */
export function convertPlan(source: PredecessorPlan): ConvertedPlan {
  const notes: ConversionNote[] = [];
  const ids = new Set(source.tasks.map((t) => t.id));
  const establishedBy = new Map<string, string[]>();
  for (const t of source.tasks)
    for (const p of t.preconditions) {
      if (p.established_by === null || !ids.has(p.established_by)) continue;
      const facts = establishedBy.get(p.established_by) ?? [];
      if (!facts.includes(p.fact)) establishedBy.set(p.established_by, [...facts, p.fact]);
    }
  const verifyIds = new Map<string, string>();
  for (const t of source.tasks) if (t.verification) verifyIds.set(t.id, freshId(`${t.id}.verify`, ids));

  const tasks: Task[] = [];
  let pending: Task[] = [];
  source.tasks.forEach((t, i) => {
    tasks.push(convertTask(t, i, establishedBy.get(t.id) ?? [], verifyIds.get(t.id), ids, notes));
    const check = verifyIds.get(t.id);
    if (check && t.verification)
      pending.push({
        ...defaults(check, `Check ${t.verification.what} (how: ${t.verification.how}; expected: ${t.verification.expected})`, "verify"),
        verifies: { task: t.id, subject: "mutation_output", reads: [] },
      });
    const next = source.tasks[i + 1];
    // A parallel group must stay contiguous: its checks follow the whole group.
    if (!(next && t.parallel_group !== null && next.parallel_group === t.parallel_group)) {
      tasks.push(...pending);
      pending = [];
    }
  });
  if (verifyIds.size > 0) notes.push(note("derived", "tasks[].verification", `synthetic verify tasks: ${[...verifyIds.values()].join(", ")}`));
  if (source.branches.length > 0)
    notes.push(note("not_convertible", "branches", `${source.branches.length} branch(es) dropped: docs/design.md §3 has no branches`));
  return {
    plan: {
      id: source.id,
      goal_id: source.goal_id,
      version: source.version,
      parent_id: source.parent_version,
      tasks,
      dependencies: source.dependencies.map((d) => ({ from: d.from_task, to: d.to_task, kind: d.kind })),
    },
    notes,
    originalTaskIds: source.tasks.map((t) => t.id),
    inventedTaskIds: [...verifyIds.values()],
  };
}

function defaults(id: string, description: string, kind: Task["kind"]): Task {
  return {
    id,
    description,
    kind,
    target: undefined,
    attributes: undefined,
    risk: "medium",
    blast_radius: "medium",
    reversibility: "reversible",
    parallel_group: undefined,
    preconditions: [],
    establishes: [],
    produces: [],
    mutates: [],
    destroys: [],
    verifies: undefined,
    rollback: undefined,
  };
}

function convertTask(
  t: PredecessorTask,
  index: number,
  establishes: string[],
  check: string | undefined,
  ids: ReadonlySet<string>,
  notes: ConversionNote[],
): Task {
  const at = `tasks[${index}]`;
  const blast = t.blast_radius.toLowerCase();
  const blastRadius: Level = (LEVELS as readonly string[]).includes(blast) ? (blast as Level) : "medium";
  if (blastRadius !== blast) notes.push(note("not_convertible", `${at}.blast_radius`, `"${t.blast_radius}" is not a level; imported as medium`));
  const preconditions = t.preconditions.map((p, k): Precondition => {
    const by = p.established_by;
    if (p.probe !== undefined && p.probe !== null)
      notes.push(note("not_convertible", `${at}.preconditions[${k}].probe`, "probe dropped (the predecessor counted any probe as grounding)"));
    if (by === null) return { fact: p.fact, established_by: undefined };
    if (ENV_ALIASES.has(by) || by.startsWith("env:")) {
      if (by !== "env") notes.push(note("derived", `${at}.preconditions[${k}].established_by`, `"${by}" imported as env`));
      return { fact: p.fact, established_by: "env" };
    }
    if (!ids.has(by)) notes.push(note("inconsistent", `${at}.preconditions[${k}].established_by`, `"${by}" names no task; kept, so schema_valid reports it`));
    return { fact: p.fact, established_by: by };
  });
  const rollback = t.rollback && {
    trigger: check ?? t.id,
    action: t.rollback.safety_guard ? `${t.rollback.action} (safety guard: ${t.rollback.safety_guard})` : t.rollback.action,
    requires: [],
    restores: [],
  };
  if (t.rollback && !check)
    notes.push(note("not_convertible", `${at}.rollback.trigger`, `"${t.rollback.trigger}" names no check; the trigger is the task itself`));
  return {
    ...defaults(t.id, t.description, "mutate"),
    target: t.target === "" ? undefined : t.target,
    risk: t.risk_class,
    blast_radius: blastRadius,
    parallel_group: t.parallel_group ?? undefined,
    preconditions,
    establishes,
    rollback: rollback ?? undefined,
  };
}

function freshId(base: string, taken: ReadonlySet<string>): string {
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}
