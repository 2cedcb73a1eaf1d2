import type { z } from "zod";
import { GoalSchema, type Goal } from "../../src/formats/goal.ts";
import { PlanSchema, type DependencySchema, type Plan, type TaskSchema } from "../../src/formats/plan.ts";

/** Terse builders for goals and plans in tests. Everything goes through the zod schemas, so defaults apply as in a file. */

type TaskInput = z.input<typeof TaskSchema>;
type TaskFields = Omit<TaskInput, "id" | "kind" | "description"> & { description?: string };
type DependencyInput = z.input<typeof DependencySchema>;

const GOAL_ID = "test-goal";

export function makeGoal(facts: string[] = [], overrides: Partial<z.input<typeof GoalSchema>> = {}): Goal {
  return GoalSchema.parse({
    id: GOAL_ID,
    domain: "test",
    title: "Test goal",
    description: "A goal for tests",
    risk_tolerance: "strict",
    constraints: { facts },
    ...overrides,
  });
}

export function makePlan(tasks: TaskInput[], dependencies: DependencyInput[] = [], overrides: Record<string, unknown> = {}): Plan {
  return PlanSchema.parse({ id: "test-plan", goal_id: GOAL_ID, tasks, dependencies, ...overrides });
}

function task(kind: TaskInput["kind"], id: string, fields: TaskFields = {}): TaskInput {
  return { id, kind, description: `${kind} ${id}`, ...fields };
}

export const read = (id: string, fields?: TaskFields) => task("read", id, fields);
export const mutate = (id: string, fields?: TaskFields) => task("mutate", id, fields);
export const notify = (id: string, fields?: TaskFields) => task("notify", id, fields);

/** A verify task; `reads` defaults to nothing. */
export function verify(
  id: string,
  target: string,
  subject: "pre_state" | "constraint" | "mutation_output",
  reads: string[] = [],
  fields: TaskFields = {},
): TaskInput {
  return task("verify", id, { verifies: { task: target, subject, reads }, ...fields });
}

export const hard = (from: string, to: string): DependencyInput => ({ from, to, kind: "hard" });
export const soft = (from: string, to: string): DependencyInput => ({ from, to, kind: "soft" });

/** The codes of a finding list, for compact assertions. */
export const codesOf = (findings: readonly { code: string }[]) => findings.map((f) => f.code);
