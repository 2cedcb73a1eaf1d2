import { GATE_CODES, type GateCode, type GateFinding } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";
import type { PlanGraph } from "../graph/plan-graph.ts";

/** A gate: a pure function of the goal and the plan, asked through the plan's graph. */
export type Gate = (goal: Goal, plan: Plan, graph: PlanGraph) => GateFinding[];

/** The `gate:code:task_id:` prefix of a finding key; a null task id is written as empty. */
export function keyPrefix(gate: string, code: string, taskId: string | null): string {
  return `${gate}:${code}:${taskId ?? ""}:`;
}

/**
 * Build a gate finding. `detail` makes the key unique within the plan: it names what the finding
 * is about (a fact, an edge, the other task of a pair), never prose.
 */
export function gateFinding(code: GateCode, taskId: string | null, detail: string, message: string): GateFinding {
  const { gate, family } = GATE_CODES[code];
  return {
    origin: "gate",
    gate,
    code,
    family,
    severity: "blocker",
    task_id: taskId,
    message,
    key: keyPrefix(gate, code, taskId) + detail,
  };
}

/** The detail part of a finding's key (what follows `gate:code:task_id:`). */
export function keyDetail(finding: GateFinding): string {
  return finding.key.slice(keyPrefix(finding.gate, finding.code, finding.task_id).length);
}

/** `a, b and c` for messages. */
export function listIds(ids: readonly string[]): string {
  if (ids.length <= 1) return ids.join("");
  return `${ids.slice(0, -1).join(", ")} and ${ids[ids.length - 1]}`;
}
