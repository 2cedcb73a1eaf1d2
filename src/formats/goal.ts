import { z } from "zod";
import { CATEGORIES, FAMILIES, REPLAN_POLICIES, RISK_TOLERANCES, ESCALATION_REASONS } from "./enums.ts";

export const ID_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

/** An explicit null means absent (docs/design.md §3), so optional fields accept null. */
const nullish = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

const ConstraintsSchema = z
  .strictObject({
    environment: nullish(z.string()),
    tools: nullish(z.array(z.string())).transform((v) => v ?? []),
    facts: nullish(z.array(z.string())).transform((v) => v ?? []),
    max_revisions: nullish(z.number().int().min(0)),
  })
  .prefault({});

const goalShape = {
  id: z.string().regex(ID_PATTERN, "must match ^[a-z0-9][a-z0-9-]*$"),
  domain: z.string().min(1),
  title: z.string().min(1),
  description: z.string().min(1),
  risk_tolerance: z.enum(RISK_TOLERANCES),
  replan_policy: nullish(z.enum(REPLAN_POLICIES)).transform((v) => v ?? "patch"),
  constraints: ConstraintsSchema,
};

const ExpectSchema = z.strictObject({
  verdict: z.enum(["approve", "escalate"]),
  escalation_reasons: nullish(z.array(z.enum(ESCALATION_REASONS))).transform((v) => v ?? []),
  min_tasks: nullish(z.number().int().min(1)),
  mandatory_elements: nullish(z.array(z.string().min(1))).transform((v) => v ?? []),
  forbidden_blocker_families: nullish(z.array(z.enum(FAMILIES))).transform((v) => v ?? []),
});

export const GoalSchema = z.strictObject(goalShape);

/** A corpus goal file: a goal plus its category and the expectation the sweep checks. */
export const CorpusGoalSchema = z.strictObject({
  ...goalShape,
  category: z.enum(CATEGORIES),
  expect: ExpectSchema,
});

/** `check --goal` accepts both plain and corpus goal files: a file with corpus-only keys is read as one. */
export function goalSchemaFor(raw: unknown): typeof GoalSchema | typeof CorpusGoalSchema {
  const isObject = typeof raw === "object" && raw !== null;
  return isObject && ("category" in raw || "expect" in raw) ? CorpusGoalSchema : GoalSchema;
}

export type Goal = z.output<typeof GoalSchema>;
export type CorpusGoal = z.output<typeof CorpusGoalSchema>;

/** Strip the corpus-only fields; the engine sees a plain goal. */
export function toGoal(g: Goal | CorpusGoal): Goal {
  const { id, domain, title, description, risk_tolerance, replan_policy, constraints } = g;
  return { id, domain, title, description, risk_tolerance, replan_policy, constraints };
}
