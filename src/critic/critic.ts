import { z } from "zod";
import { canonicalJson } from "../canonical.ts";
import type { Fixture } from "../formats/fixture.ts";
import type { GateFinding } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";
import type { CallRecord, CriticAudit } from "../formats/records.ts";
import type { LlmRequest, ModelClient } from "../providers/types.ts";
import { normalizeCriticResponse, unavailableAudit } from "./normalize.ts";
import { CRITIC_PROMPT, renderTemplate } from "./prompts/index.ts";

/**
 * What the client validates before it accepts an answer: only the envelope. Items are judged one
 * by one during normalization, so one bad item never costs the whole audit (or a retry).
 */
const CriticEnvelopeSchema = z.looseObject({ findings: z.array(z.unknown()) });

export interface CriticCall {
  client: ModelClient;
  itemId: string;
  trial: number;
  round: number;
  /** The boundary fixture under review, for critic-only trials (the sim reads its ground truth). */
  fixture?: Fixture;
}

export function criticRequest(goal: Goal, plan: Plan, gateFindings: readonly GateFinding[], call: CriticCall): LlmRequest {
  const template = CRITIC_PROMPT.templates.review.text;
  return {
    role: "critic",
    itemId: call.itemId,
    trial: call.trial,
    round: call.round,
    system: CRITIC_PROMPT.system,
    userTemplate: template,
    user: renderTemplate(template, {
      goal_json: canonicalJson(goal),
      plan_json: canonicalJson(plan),
      gate_findings_json: canonicalJson(gateFindings),
    }),
    schemaName: CRITIC_PROMPT.schemaName,
    schema: CRITIC_PROMPT.schema,
    sim: { goal, plan, gateFindings: [...gateFindings], ...(call.fixture ? { fixture: call.fixture } : {}) },
  };
}

/** Ask the critic to audit the whole plan. Never throws for a model failure: that is an unavailable audit. */
export async function runCritic(
  goal: Goal,
  plan: Plan,
  gateFindings: readonly GateFinding[],
  call: CriticCall,
): Promise<{ audit: CriticAudit; calls: CallRecord[] }> {
  const result = await call.client.structured(criticRequest(goal, plan, gateFindings, call), CriticEnvelopeSchema);
  const audit = result.ok
    ? normalizeCriticResponse(goal, plan, result.rawText)
    : unavailableAudit(result.outcome, result.rawText);
  return { audit, calls: result.calls };
}
