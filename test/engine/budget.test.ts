import { describe, expect, it } from "vitest";
import { budgetExhausted, spendOf } from "../../src/loop/budget.ts";
import { call } from "../metrics/builders.ts";

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
});
