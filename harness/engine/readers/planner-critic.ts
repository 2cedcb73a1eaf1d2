import { unavailableAudit } from "../../../src/critic/normalize.ts";
import type { Goal } from "../../../src/formats/goal.ts";
import { issueAt } from "../../../src/formats/load.ts";
import { EngineFindingSchema, type CallRecord, type CriticAudit, type EngineFinding } from "../../../src/formats/records.ts";
import { parseStructured } from "../../../src/providers/structured-output.ts";
import { auditRecordedResponse } from "../../import/planner-critic/critic.ts";
import { convertPlan } from "../../import/planner-critic/plan.ts";
import { PredecessorPlanSchema, TraceSchema, type PredecessorPlan } from "../../import/planner-critic/schema.ts";
import { UnreadableResult, type EngineRun } from "../result.ts";

/**
 * A PlannerCritic 0.1.0 trial (`field-test run --dimensions core-api`) as the harness reads it.
 * Its trace.json gives the decision, the reason code, the final plan and the engine's findings;
 * the rounds come from the calls the proxy recorded (its own order): each plan the planner
 * answered opens a round, and the round's last critic answer is its audit, rescored by fieldtest
 * on that plan. Plans are converted as `fieldtest import planner-critic` converts them, the
 * verify tasks the conversion invents marked as translated.
 */
export function readPlannerCriticResult(data: unknown, goal: Goal, calls: readonly CallRecord[]): EngineRun {
  const trace = TraceSchema.safeParse(data);
  if (!trace.success) {
    const { path, detail } = issueAt(trace.error.issues[0]!, data);
    throw new UnreadableResult(`trace.json: ${path ? `${path}: ` : ""}${detail}`);
  }
  const plans: PredecessorPlan[] = [];
  const audits = new Map<number, CallRecord>();
  for (const call of calls) {
    if (call.role === "planner") {
      const parsed = call.outcome === "ok" && call.raw_text !== null ? parseStructured(call.raw_text, PredecessorPlanSchema) : null;
      if (parsed?.ok) plans.push(parsed.value);
    } else audits.set(Math.max(plans.length - 1, 0), call);
  }
  const final = PredecessorPlanSchema.safeParse(trace.data.plan);
  if (final.success) plans.splice(Math.max(plans.length - 1, 0), 1, final.data);
  const findings = trace.data.findings.flatMap((f): EngineFinding[] => {
    const parsed = EngineFindingSchema.safeParse(f);
    return parsed.success ? [parsed.data] : [];
  });
  return {
    status: trace.data.result.status,
    // Its reason code also says "approved" of an approval: only an escalation or an error has a reason.
    reasons: trace.data.result.reason_code === null || trace.data.result.status === "approved" ? [] : [trace.data.result.reason_code],
    error: trace.data.error,
    rounds: plans.map((p, index) => {
      const converted = convertPlan(p);
      const call = audits.get(index);
      return {
        plan: converted.plan,
        translatedTasks: converted.inventedTaskIds,
        engineFindings: index === plans.length - 1 ? findings : [],
        critic: call === undefined ? null : audit(goal, converted.plan, call, converted.originalTaskIds),
      };
    }),
  };
}

function audit(goal: Goal, plan: Parameters<typeof auditRecordedResponse>[1], call: CallRecord, taskIds: readonly string[]): CriticAudit {
  if (call.outcome === "error" || call.raw_text === null) return unavailableAudit("provider_error", call.raw_text);
  return auditRecordedResponse(goal, plan, call.raw_text, taskIds);
}
