import { z } from "zod";
import { GoalSchema } from "./goal.ts";
import { PlanSchema } from "./plan.ts";

/**
 * A canary file: one goal shared by its cases; each case is a plan and exactly the codes it must
 * fire (any other of the owner's codes firing is a failure, so a canary also pins that its check
 * stays isolated). `silent_for` names the codes whose must-not-fire near twin the case is. The
 * gate canaries (corpus/canaries/) and every domain pack's canaries (<pack>/canaries/) share it;
 * `code` says which codes a file may name.
 */
export function canaryFileSchema<C extends z.ZodType<string>>(code: C) {
  const CaseSchema = z
    .strictObject({
      name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
      note: z.string().min(1),
      fires: z.array(code).default([]),
      silent_for: z.array(code).default([]),
      plan: PlanSchema,
    })
    .refine((c) => c.fires.length + c.silent_for.length > 0, "a case must name the codes it fires or is silent for")
    .refine((c) => !c.fires.some((x) => (c.silent_for as string[]).includes(x)), "a code cannot both fire and be silent");
  return z.strictObject({
    description: z.string().min(1),
    goal: GoalSchema,
    cases: z.array(CaseSchema).min(1),
  });
}

export type CanaryFile = z.output<ReturnType<typeof canaryFileSchema<z.ZodString>>>;
