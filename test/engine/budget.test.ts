import { describe, expect, it } from "vitest";
import { CriticOutputSchema } from "../../src/formats/findings.ts";
import { budgetExhausted, budgetGuard, spendOf } from "../../src/loop/budget.ts";
import { createModelClient } from "../../src/providers/client.ts";
import { call } from "../metrics/builders.ts";
import { chatCompletion, errorBody, useFakeServers, type Step } from "../providers/fake-server.ts";
import { criticRequest, fakeClock, VALID_CRITIC_ANSWER } from "../providers/helpers.ts";

const startServer = useFakeServers();

/** One critic request under a per-goal token budget, against a local server answering `steps`. */
async function underTokenBudget(steps: Step[]) {
  const server = await startServer(steps);
  const critic = { provider: "openai" as const, model: "gpt-4o-mini", baseUrl: `${server.url}/v1` };
  const client = createModelClient({ planner: critic, critic, maxRetries: 2 }, { ...fakeClock(), random: () => 0, env: {} });
  const result = await client.structured(criticRequest(), CriticOutputSchema, budgetGuard([], { tokens: 10_000 }));
  return { result, server };
}

describe("per-goal budgets", () => {
  it("count reported tokens against a token limit", () => {
    const spend = spendOf([call({ usage: { input_tokens: 100, output_tokens: 20 } })]);
    expect(spend).toMatchObject({ tokens: 120, tokensUnknown: false });
    expect(budgetExhausted(spend, { tokens: 121 })).toBe(false);
    expect(budgetExhausted(spend, { tokens: 120 })).toBe(true);
  });
  it("treat a call without usage as reaching a token limit: it cannot prove it stayed under (fail closed)", () => {
    const spend = spendOf([call({ usage: { input_tokens: 1, output_tokens: 1 } }), call({ usage: null })]);
    expect(spend).toMatchObject({ tokens: 2, tokensUnknown: true });
    expect(budgetExhausted(spend, { tokens: 1_000_000 })).toBe(true);
    expect(budgetExhausted(spend, {})).toBe(false);
  });
  it("treat an unknown cost as reaching a cost limit, and only a cost limit", () => {
    const spend = spendOf([call({ cost: null })]);
    expect(budgetExhausted(spend, { costUsd: 100 })).toBe(true);
    expect(budgetExhausted(spend, { calls: 5, tokens: 1_000 })).toBe(false);
  });

  it("let a token-limited call retry a send refused with an HTTP status (nothing was generated), and answer", async () => {
    const { result, server } = await underTokenBudget([
      { status: 429, body: errorBody("slow down", "rate_limit_error"), headers: { "retry-after-ms": "0" } },
      { status: 200, body: chatCompletion(JSON.stringify(VALID_CRITIC_ANSWER)) },
    ]);
    expect(result.ok).toBe(true);
    expect(server.received).toHaveLength(2);
    expect(result.calls[0]!.transport_attempts.map((a) => a.http_status)).toEqual([429, 200]);
  });
  it("refuse a token-limited retry after a send that may have generated tokens (a cut body)", async () => {
    const { result, server } = await underTokenBudget([
      { truncate: chatCompletion(JSON.stringify(VALID_CRITIC_ANSWER)) },
      { status: 200, body: chatCompletion(JSON.stringify(VALID_CRITIC_ANSWER)) },
    ]);
    expect(result).toMatchObject({ ok: false, outcome: "budget_exceeded" });
    expect(server.received).toHaveLength(1);
  });
});
