import { z } from "zod";
import type { GateFinding } from "../../src/formats/findings.ts";
import { goalSchemaFor, toGoal, type Goal } from "../../src/formats/goal.ts";
import { InputError, readSource, validate } from "../../src/formats/load.ts";
import { PlanSchema, type Plan } from "../../src/formats/plan.ts";
import { runGates } from "../../src/gates/index.ts";
import { structuralViolations } from "../../src/gates/structure.ts";
import { loadPacks } from "../../src/packs/load.ts";
import { packCanaryFailures } from "../packs.ts";
import { parseApiOptions, PathSchema } from "./options.ts";

/**
 * Read a goal file (plain or corpus) and a plan file. A plan that breaks the zod schema or any
 * structural rule of docs/design.md §3 (including a goal_id that is not the goal's id) is invalid
 * input: an InputError naming the plan file, the line and the key path.
 */
export function loadCheckInputs(goalFile: string, planFile: string): { goal: Goal; plan: Plan } {
  const goalSource = readSource(goalFile);
  const goal = toGoal(validate(goalSource, goalSchemaFor(goalSource.data)));
  const planSource = readSource(planFile);
  const plan = validate(planSource, PlanSchema);
  const [first] = structuralViolations(goal, plan);
  if (first) throw new InputError(planFile, first.path, first.message, planSource.lineOf(first.segments));
  return { goal, plan };
}

export const CheckPlanOptionsSchema = z.strictObject({
  /** A goal file (YAML or JSON; corpus goal files are accepted). */
  goal: PathSchema,
  /** A plan file (YAML or JSON). */
  plan: PathSchema,
  /** Domain pack folders whose rules also run. */
  pack: z.array(PathSchema).default([]),
});
export type CheckPlanOptions = z.input<typeof CheckPlanOptionsSchema>;

export type CheckOutcome =
  | { verdict: "pass" | "blocked"; plan: Plan; findings: GateFinding[]; exitCode: 0 | 1 }
  /** A pack failed its own canaries: its rules cannot be trusted, so the plan was not checked. */
  | { verdict: "not_checked"; packFailures: string[]; exitCode: 3 };

/** The deterministic gates (and any pack's rules) on a plan: no LLM, no repairs. */
export function checkPlan(options: CheckPlanOptions): CheckOutcome {
  const o = parseApiOptions("checkPlan", CheckPlanOptionsSchema, options);
  const packs = loadPacks(o.pack);
  const { goal, plan } = loadCheckInputs(o.goal, o.plan);
  const packFailures = packCanaryFailures(packs);
  if (packFailures.length > 0) return { verdict: "not_checked", packFailures, exitCode: 3 };
  const findings = runGates(goal, plan, { packs });
  return findings.length === 0 ? { verdict: "pass", plan, findings, exitCode: 0 } : { verdict: "blocked", plan, findings, exitCode: 1 };
}
