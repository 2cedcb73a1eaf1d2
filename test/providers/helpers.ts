import { z } from "zod";
import { CriticOutputSchema } from "../../src/formats/findings.ts";
import type { LlmRequest } from "../../src/providers/types.ts";

/** A clock that only moves when slept on; every wait is recorded. */
export function fakeClock(start = 1_000_000) {
  let t = start;
  const waits: number[] = [];
  return {
    waits,
    now: () => t,
    sleep: async (ms: number) => {
      waits.push(ms);
      t += ms;
    },
  };
}

export const CRITIC_SCHEMA = z.toJSONSchema(CriticOutputSchema) as Record<string, unknown>;

export const VALID_CRITIC_ANSWER = {
  findings: [
    {
      family: "unsafe_sequencing",
      severity: "blocker",
      task_id: "apply",
      message: "apply runs before its check",
      suggested_fix: "move the check",
      evidence: { claim: "misordered", tasks: ["apply", "check"], facts: [] },
    },
  ],
};

export function criticRequest(over: Partial<LlmRequest> = {}): LlmRequest {
  return {
    role: "critic",
    itemId: "item-1",
    trial: 0,
    round: 0,
    system: "You are a careful critic of change plans.",
    userTemplate: "Review this plan: {{plan}}",
    user: "Review this plan: {}",
    schemaName: "critic_findings",
    schema: CRITIC_SCHEMA,
    ...over,
  };
}
