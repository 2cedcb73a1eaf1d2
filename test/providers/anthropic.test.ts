import { describe, expect, it } from "vitest";
import { hashCanonical } from "../../src/canonical.ts";
import { CriticOutputSchema } from "../../src/formats/findings.ts";
import { ANTHROPIC_DEFAULT_MAX_TOKENS } from "../../src/providers/anthropic.ts";
import { createModelClient, type RoleConfig } from "../../src/providers/client.ts";
import { anthropicToolUse, errorBody, useFakeServers, type Step } from "./fake-server.ts";
import { criticRequest, CRITIC_SCHEMA, fakeClock, VALID_CRITIC_ANSWER } from "./helpers.ts";

const KEY = "sk-ant-test-key-111111";
const startServer = useFakeServers();

async function setup(steps: Step[], role: Partial<RoleConfig> = {}) {
  const server = await startServer(steps);
  const clock = fakeClock();
  const critic: RoleConfig = { provider: "anthropic", model: "claude-sonnet-4-5", baseUrl: server.url, seed: 3, ...role };
  const client = createModelClient({ planner: critic, critic }, { now: clock.now, sleep: clock.sleep, random: () => 0.5, env: { ANTHROPIC_API_KEY: KEY } });
  return { client, clock, server };
}

const ok = (input: unknown, over = {}): Step => ({ status: 200, body: anthropicToolUse(input, over) });

describe("anthropic adapter through the client", () => {
  it("asks for structured output through a forced tool call", async () => {
    const { client, server } = await setup([ok(VALID_CRITIC_ANSWER)]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toEqual(VALID_CRITIC_ANSWER);
    const sent = server.received[0]!;
    expect(sent.path).toBe("/v1/messages");
    // SDK 1.x sends the key as a bearer token (older releases used x-api-key).
    expect(String(sent.headers["x-api-key"] ?? sent.headers.authorization)).toContain(KEY);
    expect(sent.body.tool_choice).toEqual({ type: "tool", name: "critic_findings" });
    expect(sent.body.tools).toEqual([{ name: "critic_findings", description: "Record the answer.", input_schema: CRITIC_SCHEMA }]);
    expect(sent.body.system).toBe("You are a careful critic of change plans.");
    expect(sent.body.seed).toBeUndefined();
    const call = result.calls[0]!;
    expect(call.context).toMatchObject({
      provider: "anthropic",
      base_url: server.url,
      model: "claude-sonnet-4-5",
      response_format: "tool",
      // Anthropic has no seed parameter: it was not sent, so it is recorded as null.
      seed: null,
      temperature: null,
      max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
      schema_sha256: hashCanonical(sent.body.tools),
      sdk: "@anthropic-ai/sdk",
    });
    expect(call.usage).toEqual({ input_tokens: 200, output_tokens: 30 });
    expect(call.cost_usd).toBeCloseTo((200 * 3 + 30 * 15) / 1e6, 12);
    expect(call.reported).toEqual({ model: "claude-sonnet-4-5", system_fingerprint: null });
  });

  it("feeds a schema failure back as an error tool_result", async () => {
    const { client, server } = await setup([ok({ findings: "none" }), ok(VALID_CRITIC_ANSWER)]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    const messages = server.received[1]!.body.messages as { role: string; content: unknown }[];
    expect(messages).toHaveLength(3);
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [{ type: "tool_use", id: "correction_0", name: "critic_findings", input: { findings: "none" } }],
    });
    const feedback = (messages[2]!.content as { type: string; is_error: boolean; content: string }[])[0]!;
    expect(feedback).toMatchObject({ type: "tool_result", tool_use_id: "correction_0", is_error: true });
    expect(feedback.content).toContain("findings");
  });

  it("never reads an answer cut off at the output limit as complete, though its tool input parses: each is rejected, fed back and, when every attempt is cut, the critic is unavailable", async () => {
    // A clean-looking audit that is only what came before the cut: read as complete, it would approve.
    const cut = (stop_reason: string): Step => ({ status: 200, body: { ...anthropicToolUse({ findings: [] }), stop_reason } });
    const { client, server } = await setup([cut("max_tokens"), cut("model_context_window_exceeded"), cut("refusal")]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.outcome).toBe("invalid_output");
    expect(result.calls.map((c) => [c.outcome, c.error_class, c.validation_error])).toEqual([
      ["invalid_output", "incomplete", "the answer ended before it was complete (stop_reason max_tokens: the output limit)"],
      ["invalid_output", "incomplete", "the answer ended before it was complete (stop_reason model_context_window_exceeded: the context window)"],
      ["invalid_output", "incomplete", "the answer ended before it was complete (stop_reason refusal: the model declined)"],
    ]);
    // The model is told why, as with any rejected answer.
    const feedback = ((server.received[1]!.body.messages as { content: unknown }[])[2]!.content as { content: string }[])[0]!.content;
    expect(feedback).toContain("stop_reason max_tokens");
  });

  it("reads a tool call without input, or content of no known shape, as no text: invalid output recorded as a string", async () => {
    const odd = (content: unknown): Step => ({ status: 200, body: { ...anthropicToolUse({}), content } });
    const { client } = await setup([odd([{ type: "tool_use", id: "toolu_1", name: "critic_findings" }]), odd("just text"), odd({ findings: [] })]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(false);
    expect(result.calls.map((c) => [c.outcome, c.raw_text])).toEqual([
      ["invalid_output", ""],
      ["invalid_output", "just text"],
      ["invalid_output", ""],
    ]);
  });

  it("retries 429 (Retry-After) and 529 overloaded, then answers", async () => {
    const { client, clock } = await setup([
      { status: 429, body: { type: "error", error: { type: "rate_limit_error", message: "slow" } }, headers: { "retry-after": "3" } },
      { status: 529, body: { type: "error", error: { type: "overloaded_error", message: "busy" } } },
      ok(VALID_CRITIC_ANSWER, { model: "claude-sonnet-4-5-20250929" }),
    ]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    // Retry-After 3 s, then backoff for retry 1: ceiling 1000 ms, jitter 0.5 → 750 ms.
    expect(clock.waits).toEqual([3000, 750]);
    expect(result.calls[0]!.transport_attempts.map((a) => a.http_status)).toEqual([429, 529, 200]);
    expect(result.calls[0]!.model_mismatch).toBe("snapshot");
    expect(result.calls[0]!.context.model).toBe("claude-sonnet-4-5");
  });

  it("records temperature and max_tokens as sent", async () => {
    const { client } = await setup([ok(VALID_CRITIC_ANSWER)], { temperature: 0.2, topP: 0.9, maxTokens: 1000 });
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.calls[0]!.context).toMatchObject({ temperature: 0.2, top_p: 0.9, max_tokens: 1000 });
  });

  it("turns an error status without retry into provider_error", async () => {
    const { client } = await setup([{ status: 404, body: errorBody("no such model", "not_found_error") }]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result).toMatchObject({ ok: false, outcome: "provider_error" });
    expect(result.calls[0]!.error_class).toBe("client_error");
  });

  it("turns a 200 whose body is JSON null into an unretried provider_error of unknown cost, its call recorded", async () => {
    const { client, server } = await setup([{ status: 200, body: null }]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result).toMatchObject({ ok: false, outcome: "provider_error" });
    if (result.ok) return;
    expect(result.error).toContain("unexpected");
    expect(server.received).toHaveLength(1);
    expect(result.calls).toHaveLength(1);
    expect(result.calls[0]).toMatchObject({ outcome: "error", error_class: "unexpected", http_status: null, cost_usd: null, raw_text: null });
  });

  it("reads an error envelope sent with 200 as the failed call it is, retried as a server error, never as the model's answer", async () => {
    const envelope: Step = { status: 200, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } };
    const { client, server } = await setup([envelope, envelope, ok(VALID_CRITIC_ANSWER)]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    expect(server.received).toHaveLength(3);
    expect(result.calls).toHaveLength(1);
    expect(result.calls[0]!.transport_attempts.map((a) => [a.outcome, a.error_class, a.http_status])).toEqual([
      ["error", "server_error", 200],
      ["error", "server_error", 200],
      ["ok", null, 200],
    ]);
  });

  it("tolerates an answer without usage (or content): the call is recorded with usage null and cost unknown", async () => {
    const { usage: _, ...noUsage } = anthropicToolUse(VALID_CRITIC_ANSWER);
    const { content: __, ...noContent } = noUsage;
    const { client } = await setup([
      { status: 200, body: noUsage },
      { status: 200, body: noContent },
    ]);
    const answered = await client.structured(criticRequest(), CriticOutputSchema);
    expect(answered.ok).toBe(true);
    expect(answered.calls[0]).toMatchObject({ usage: null, cost_usd: null, outcome: "ok" });
    const empty = await client.structured(criticRequest({ trial: 1 }), CriticOutputSchema);
    expect(empty.ok).toBe(false);
    expect(empty.calls.length).toBeGreaterThan(0);
    expect(empty.calls.every((c) => c.usage === null && c.cost_usd === null && c.outcome === "invalid_output")).toBe(true);
  });
});
