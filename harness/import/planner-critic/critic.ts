import { z } from "zod";
import { normalizeCriticResponse } from "../../../src/critic/normalize.ts";
import type { Goal } from "../../../src/formats/goal.ts";
import type { Plan } from "../../../src/formats/plan.ts";
import type { CriticAudit } from "../../../src/formats/records.ts";
import { parseStructured } from "../../../src/providers/structured-output.ts";
import { extractClaim } from "./claims.ts";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * One predecessor finding ({heuristic_family, severity, task_id, message, suggested_fix}) as a
 * docs/design.md §5 raw finding, its evidence extracted from the message. Anything that is not an
 * object passes through unchanged, so the normalizer counts it as malformed like any other.
 */
function toRawFinding(item: unknown, taskIds: readonly string[]): unknown {
  if (!isRecord(item)) return item;
  const taskId = typeof item.task_id === "string" ? item.task_id : null;
  const claim = typeof item.message === "string" ? extractClaim(item.message, taskId, taskIds) : null;
  return {
    family: item.heuristic_family,
    severity: item.severity,
    task_id: taskId,
    message: item.message,
    suggested_fix: typeof item.suggested_fix === "string" ? item.suggested_fix : "",
    evidence: claim?.evidence ?? null,
  };
}

/**
 * The audit of one recorded critic answer, judged by fieldtest's normalizer on the plan the
 * critic reviewed. The audit keeps the predecessor's raw text; a text that is not a JSON object
 * with a findings array is `critic_unavailable`, whatever the predecessor made of it.
 */
export function auditRecordedResponse(goal: Goal, plan: Plan, rawText: string, taskIds: readonly string[]): CriticAudit {
  const parsed = parseStructured(rawText, z.unknown());
  const value = parsed.ok ? parsed.value : null;
  const converted =
    isRecord(value) && Array.isArray(value.findings) ? JSON.stringify({ findings: value.findings.map((f) => toRawFinding(f, taskIds)) }) : rawText;
  return { ...normalizeCriticResponse(goal, plan, converted), raw_text: rawText };
}
