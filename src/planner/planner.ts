import { z } from "zod";
import { canonicalJson } from "../canonical.ts";
import type { GateFinding, NormalizedFinding } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import { PlanSchema, type Plan } from "../formats/plan.ts";
import type { CallRecord } from "../formats/records.ts";
import type { LlmRequest, ModelClient, SendGuard } from "../providers/types.ts";
import { renderTemplate, type PLANNER_PROMPT } from "../critic/prompts/index.ts";
import type { SimExtra } from "../sim/extra.ts";
import { plannerPromptFor } from "../packs/planner.ts";
import type { AttributeDecl } from "../packs/schema.ts";

/**
 * What the planner must answer: tasks and dependencies. The plan header (id, goal_id, version,
 * parent_id) is the loop's to stamp; a planner that writes one anyway is not wrong, it is ignored.
 */
export const PlannerOutputSchema = PlanSchema.extend({
  id: z.string().nullish(),
  goal_id: z.string().nullish(),
  version: z.number().nullish(),
  parent_id: z.string().nullish(),
});
type PlannerOutput = z.output<typeof PlannerOutputSchema>;

/** What the planner is asked to do, one prompt template each. */
type PlannerMode = keyof typeof PLANNER_PROMPT.templates;

/** A finding handed to the planner: a blocker of the round it must fix. */
type BlockingFinding = GateFinding | NormalizedFinding;

interface PlannerCall {
  client: ModelClient;
  itemId: string;
  trial: number;
  /** The round whose plan this call writes. */
  round: number;
  /** The caller's spending limit, asked before every send. */
  guard?: SendGuard;
  /** Task attributes the enabled packs read: when there are any, the planner is asked to write them. */
  attributes?: Readonly<Record<string, AttributeDecl>>;
}

export type PlannerResult =
  | { ok: true; plan: Plan; calls: CallRecord[] }
  | { ok: false; outcome: "invalid_output" | "provider_error" | "budget_exceeded"; error: string; calls: CallRecord[] };

/** The fields of a finding the planner needs to act on it, in a stable shape. */
function findingForPlanner(f: BlockingFinding) {
  return {
    origin: f.origin,
    key: f.key,
    family: f.family,
    task_id: f.task_id,
    message: f.message,
    ...(f.origin === "critic" ? { suggested_fix: f.suggested_fix, evidence: f.evidence } : { code: f.code }),
  };
}

/** The plan of round `round` (0-based): `plan-<goal>-r<round+1>`, its parent the previous round's plan. */
function stampPlan(goal: Goal, output: PlannerOutput, round: number, parent: Plan | null): Plan {
  return {
    id: `plan-${goal.id}-r${round + 1}`,
    goal_id: goal.id,
    version: round + 1,
    parent_id: parent?.id ?? null,
    tasks: output.tasks,
    dependencies: output.dependencies,
  };
}

export function plannerRequest(goal: Goal, mode: PlannerMode, call: PlannerCall, previous?: { plan: Plan; findings: readonly BlockingFinding[] }): LlmRequest {
  const prompt = plannerPromptFor(call.attributes ?? {});
  const template = prompt.templates[mode].text;
  const findings = previous?.findings ?? [];
  return {
    role: "planner",
    itemId: call.itemId,
    trial: call.trial,
    round: call.round,
    system: prompt.system,
    userTemplate: template,
    user: renderTemplate(template, {
      goal_json: canonicalJson(goal),
      ...(previous ? { plan_json: canonicalJson(previous.plan), findings_json: canonicalJson(findings.map(findingForPlanner)) } : {}),
    }),
    schemaName: prompt.schemaName,
    schema: prompt.schema,
    extra: {
      goal,
      mode,
      ...(previous
        ? {
            plan: previous.plan,
            findings: findings.map((f) => ({ key: f.key, family: f.family, task_id: f.task_id, origin: f.origin })),
          }
        : {}),
    } satisfies SimExtra,
  };
}

/**
 * Ask the planner for a plan: `decompose` a goal, `revise` the previous plan against its blocking
 * findings (replan policy patch), or `restart` from scratch with those findings as context.
 * A planner that never answers validly is a result, not an exception.
 */
export async function runPlanner(
  goal: Goal,
  mode: PlannerMode,
  call: PlannerCall,
  previous?: { plan: Plan; findings: readonly BlockingFinding[] },
): Promise<PlannerResult> {
  const result = await call.client.structured(plannerRequest(goal, mode, call, previous), PlannerOutputSchema, call.guard);
  if (!result.ok) return { ok: false, outcome: result.outcome, error: result.error, calls: result.calls };
  return { ok: true, plan: stampPlan(goal, result.value, call.round, previous?.plan ?? null), calls: result.calls };
}
