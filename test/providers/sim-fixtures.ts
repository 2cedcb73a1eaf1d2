import { GoalSchema, type Goal } from "../../src/formats/goal.ts";
import type { Plan } from "../../src/formats/plan.ts";
import type { LlmRequest, SimHints } from "../../src/providers/types.ts";
import { CRITIC_SCHEMA } from "./helpers.ts";

export const GOAL: Goal = GoalSchema.parse({
  id: "db-split-tenants",
  domain: "database",
  title: "Split the shared tenant database",
  description: "Split it.",
  risk_tolerance: "strict",
  constraints: { facts: ["maintenance_window_booked"], tools: ["psql"] },
});

export function simRequest(role: "planner" | "critic", sim: SimHints, over: Partial<LlmRequest> = {}): LlmRequest {
  return {
    role,
    itemId: sim.goal.id,
    trial: 0,
    round: 0,
    system: `sim ${role}`,
    userTemplate: "{{goal}}",
    user: JSON.stringify(sim.goal),
    schemaName: role === "planner" ? "plan" : "critic_findings",
    schema: role === "planner" ? { type: "object" } : CRITIC_SCHEMA,
    sim,
    ...over,
  };
}

export function criticHints(plan: Plan, over: Partial<SimHints> = {}): SimHints {
  return { goal: GOAL, plan, ...over };
}
