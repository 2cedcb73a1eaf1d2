import { z } from "zod";
import { LEVELS, REVERSIBILITY, TASK_KINDS, VERIFY_SUBJECTS, lowerEnum } from "./enums.ts";

/** An explicit null means absent; an absent list is []. */
const names = z
  .array(z.string().min(1))
  .nullish()
  .transform((v) => v ?? []);
const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

const PreconditionSchema = z.strictObject({
  fact: z.string().min(1),
  established_by: optional(z.string().min(1)),
});

const VerifiesSchema = z.strictObject({
  task: z.string().min(1),
  subject: lowerEnum(VERIFY_SUBJECTS),
  reads: names,
});

const RollbackSchema = z.strictObject({
  trigger: z.string().min(1),
  action: z.string(),
  requires: names,
  restores: names,
});

/** An attribute name: what a domain pack's rules may read (`task.attributes.<name>`). */
export const ATTRIBUTE_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;

/**
 * Typed facts about a task that only domain-pack rules read (a CIDR, a principal, an encryption
 * mode): a string, a number, a boolean or a list of strings. Absent means no attributes; the
 * engine and the built-in gates never look at them.
 */
const AttributesSchema = z
  .record(
    z.string().regex(ATTRIBUTE_NAME_PATTERN, "attribute names match ^[a-z][a-z0-9_]*$"),
    z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]).nullable(),
  )
  .describe(
    "Typed facts about the task that only domain-pack rules read (e.g. cidr, principal, encryption): a string, a number, a boolean or a list of strings per name. The engine and the built-in gates never read them; the enabled packs declare which names they read and the planner is asked for those.",
  )
  // An explicit null means absent, as everywhere in a plan.
  .transform((r) => Object.fromEntries(Object.entries(r).filter((e): e is [string, AttributeValue] => e[1] !== null)));
export type AttributeValue = string | number | boolean | string[];

export const TASK_ID_PATTERN = /^[a-z0-9][a-z0-9_.-]*$/;

/**
 * A task id. The pattern and the reserved `env` are structural rules that the `schema_valid` gate
 * enforces (docs/design.md §3), not the parse: inside the loop a planner's bad id must become a
 * `schema_invalid` finding it is asked to fix, not a structured-output retry. So they are stated in
 * the JSON Schema (`fieldtest schema plan`) only, where a plan's author reads them.
 */
const TaskIdSchema = z
  .string()
  .min(1)
  .meta({
    pattern: TASK_ID_PATTERN.source,
    not: { const: "env" },
    description:
      "Unique in the plan. The pattern and the reserved env are the schema_valid gate's rules: a plan that breaks them still parses, and the gate reports it as schema_invalid.",
  });

export const TaskSchema = z.strictObject({
  id: TaskIdSchema,
  description: z.string().min(1),
  kind: lowerEnum(TASK_KINDS),
  target: optional(z.string()),
  risk: optional(lowerEnum(LEVELS)).transform((v) => v ?? "medium"),
  blast_radius: optional(lowerEnum(LEVELS)).transform((v) => v ?? "medium"),
  reversibility: optional(lowerEnum(REVERSIBILITY)).transform((v) => v ?? "reversible"),
  parallel_group: optional(z.string().min(1)),
  preconditions: z
    .array(PreconditionSchema)
    .nullish()
    .transform((v) => v ?? []),
  establishes: names,
  produces: names,
  mutates: names,
  destroys: names,
  verifies: optional(VerifiesSchema),
  rollback: optional(RollbackSchema),
  attributes: optional(AttributesSchema),
});

export const DependencySchema = z.strictObject({
  from: z.string().min(1),
  to: z.string().min(1),
  kind: optional(lowerEnum(["hard", "soft"] as const)).transform((v) => v ?? "hard"),
});

export const PlanSchema = z.strictObject({
  id: z.string().min(1),
  goal_id: z.string().min(1),
  version: optional(z.number().int().min(0)).transform((v) => v ?? 1),
  parent_id: optional(z.string()).transform((v) => v ?? null),
  tasks: z.array(TaskSchema),
  dependencies: z
    .array(DependencySchema)
    .nullish()
    .transform((v) => v ?? []),
});

export type Plan = z.output<typeof PlanSchema>;
/** What a plan file or planner may write before defaults are applied. */
export type PlanInput = z.input<typeof PlanSchema>;
export type Task = z.output<typeof TaskSchema>;
export type Precondition = z.output<typeof PreconditionSchema>;

/** A task is high-blast when risk or blast radius is high/critical, or it is irreversible (docs/design.md §3). */
export function isHighBlast(t: Task): boolean {
  return isHighLevel(t.risk) || isHighLevel(t.blast_radius) || t.reversibility === "irreversible";
}

// Module level, not a closure inside isHighBlast: gates call it once per task of every plan.
const isHighLevel = (level: string) => level === "high" || level === "critical";
