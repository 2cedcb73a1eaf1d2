import { PLANNER_PROMPT } from "../critic/prompts/index.ts";
import type { Fixture } from "../formats/fixture.ts";
import type { GateFinding } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";

/**
 * What the sim reads of a request instead of its prose: the structured inputs the prompt was
 * rendered from, which the planner and the critic attach as the request's opaque `extra`. No
 * other provider reads it, and it is never sent or hashed (the rendered prompt carries the same
 * content; a fixture's ground truth is the one thing it adds, and only the sim is told it).
 */
export interface SimExtra {
  goal: Goal;
  /** The plan under review (critic) or being revised (planner revise). */
  plan?: Plan;
  /** Findings handed to a revising planner. */
  findings?: { key: string; family: string; task_id: string | null; origin: "gate" | "critic" }[];
  gateFindings?: GateFinding[];
  /** A boundary fixture's ground truth, when the critic reviews a fixture. */
  fixture?: Fixture;
  /** What the planner is asked to do: one of its prompt's templates. */
  mode?: keyof typeof PLANNER_PROMPT.templates;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const absentOr = (v: unknown, check: (v: unknown) => boolean): boolean => v === undefined || check(v);

/**
 * Whether a request's extra is one the sim can answer: a goal with the fields its planner reads,
 * and each other part, when present, in the shape it reads. The engine builds these objects, so
 * the check is of shape, not content (the formats validated the goal, plan and fixture on load).
 */
export function isSimExtra(extra: unknown): extra is SimExtra {
  if (!isRecord(extra) || !isRecord(extra.goal)) return false;
  const { goal, plan, findings, gateFindings, fixture, mode } = extra;
  return (
    ["id", "domain", "title", "description"].every((key) => typeof goal[key] === "string") &&
    isRecord(goal.constraints) &&
    Array.isArray(goal.constraints.facts) &&
    absentOr(plan, (p) => isRecord(p) && Array.isArray(p.tasks) && Array.isArray(p.dependencies)) &&
    absentOr(findings, Array.isArray) &&
    absentOr(gateFindings, Array.isArray) &&
    absentOr(fixture, (f) => isRecord(f) && Array.isArray(f.seeded_defects)) &&
    absentOr(mode, (m) => typeof m === "string" && Object.hasOwn(PLANNER_PROMPT.templates, m))
  );
}
