import { z } from "zod";
import { canonicalJson } from "../canonical.ts";
import type { Fixture } from "../formats/fixture.ts";
import type { GateFinding } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";
import type { CallRecord, CriticAudit } from "../formats/records.ts";
import type { LlmRequest, ModelClient, SendGuard } from "../providers/types.ts";
import type { SimExtra } from "../sim/extra.ts";
import { malformedCount, normalizeCriticFindings, readCriticResponse, unavailableAudit, unusableFindings } from "./normalize.ts";
import { CRITIC_PROMPT, renderTemplate } from "./prompts/index.ts";

/**
 * What the client validates before it accepts an answer: the envelope, and that the findings
 * array is one an audit may rest on (an answer of nothing but malformed items, or with a malformed
 * blocker, is invalid output, fed back like any other). Other items are judged one by one during
 * normalization, so a bad warning beside good findings never costs the whole audit (or a retry).
 */
const CriticEnvelopeSchema = z.looseObject({
  findings: z.array(z.unknown()).superRefine((findings, ctx) => {
    const why = unusableFindings(findings);
    if (why !== null) ctx.addIssue({ code: "custom", message: why });
  }),
});

interface CriticCall {
  client: ModelClient;
  itemId: string;
  trial: number;
  round: number;
  /** The boundary fixture under review, for critic-only trials (the sim reads its ground truth). */
  fixture?: Fixture;
  /** The caller's spending limit, asked before every send. */
  guard?: SendGuard;
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
    extra: { goal, plan, gateFindings: [...gateFindings], ...(call.fixture ? { fixture: call.fixture } : {}) } satisfies SimExtra,
  };
}

/**
 * Ask the critic to audit the whole plan. Never throws for a model failure: that is an unavailable
 * audit. `providerError` says what went wrong when the provider never answered (the trial is then
 * an error, docs/design.md §6); it is null for every other outcome.
 */
export async function runCritic(
  goal: Goal,
  plan: Plan,
  gateFindings: readonly GateFinding[],
  call: CriticCall,
): Promise<{ audit: CriticAudit; calls: CallRecord[]; providerError: string | null }> {
  const result = await call.client.structured(criticRequest(goal, plan, gateFindings, call), CriticEnvelopeSchema, call.guard);
  if (!result.ok) {
    // The last answer's dropped items are counted as `critique` counts them.
    const dropped = result.outcome === "invalid_output" ? malformedCount(readCriticResponse(goal, plan, result.rawText)) : 0;
    const providerError = result.outcome === "provider_error" ? result.error : null;
    return { audit: unavailableAudit(result.outcome, result.rawText, dropped), calls: result.calls, providerError };
  }
  // The client parsed and validated the envelope: its items are normalized from that value, not re-read from the text.
  return { audit: normalizeCriticFindings(goal, plan, result.value.findings, result.rawText), calls: result.calls, providerError: null };
}
