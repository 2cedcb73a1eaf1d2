import { describe, expect, it } from "vitest";
import { canonicalJson, hashCanonical, sha256 } from "../../src/canonical.ts";
import { CriticOutputSchema } from "../../src/formats/findings.ts";
import type { CallRecord } from "../../src/formats/records.ts";
import { createModelClient, type RoleConfig } from "../../src/providers/client.ts";
import { isStrictCompatible } from "../../src/providers/openai.ts";
import { estimateCost } from "../../src/providers/prices.ts";
import { chatCompletion, errorBody, useFakeServers, type Step } from "./fake-server.ts";
import { criticRequest, CRITIC_SCHEMA, fakeClock, VALID_CRITIC_ANSWER } from "./helpers.ts";

const KEY = "sk-openai-test-key-000000";
const startServer = useFakeServers();

async function setup(steps: Step[] | ((r: never, i: number) => Step), role: Partial<RoleConfig> = {}, maxRetries = 4) {
  const server = await startServer(steps as Step[]);
  const clock = fakeClock();
  const events: CallRecord[] = [];
  const critic: RoleConfig = { provider: "openai", model: "gpt-4o-mini", baseUrl: `${server.url}/v1`, temperature: 0, seed: 7, maxTokens: 800, ...role };
  const client = createModelClient(
    { planner: critic, critic, maxRetries },
    { now: clock.now, sleep: clock.sleep, random: () => 0, env: { OPENAI_API_KEY: KEY }, onCall: (r) => events.push(r) },
  );
  return { client, clock, events, server };
}

const ok = (content: unknown, over = {}): Step => ({
  status: 200,
  body: chatCompletion(typeof content === "string" ? content : JSON.stringify(content), over),
});

describe("OpenAI strict mode", () => {
  it("is used only for closed schemas whose properties are all required", () => {
    expect(isStrictCompatible(CRITIC_SCHEMA)).toBe(true);
    const open = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
    expect(isStrictCompatible(open)).toBe(false);
    expect(isStrictCompatible({ ...open, additionalProperties: false })).toBe(true);
    expect(isStrictCompatible({ ...open, additionalProperties: false, properties: { a: {}, b: {} } })).toBe(false);
    const nested = { type: "object", additionalProperties: false, required: ["x"], properties: { x: { type: "array", items: open } } };
    expect(isStrictCompatible(nested)).toBe(false);
  });
});

describe("openai adapter through the client", () => {
  it("makes a correct call and records the decision context from the request", async () => {
    const { client, events, server } = await setup([ok(VALID_CRITIC_ANSWER)]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toEqual(VALID_CRITIC_ANSWER);
    expect(server.received).toHaveLength(1);
    const sent = server.received[0]!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body).toMatchObject({ model: "gpt-4o-mini", temperature: 0, seed: 7, max_tokens: 800 });
    expect(sent.body.response_format).toEqual({ type: "json_schema", json_schema: { name: "critic_findings", schema: CRITIC_SCHEMA, strict: true } });
    const [call] = result.calls;
    expect(events).toEqual(result.calls);
    expect(call!.context).toEqual({
      provider: "openai",
      base_url: `${server.url}/v1`,
      model: "gpt-4o-mini",
      temperature: 0,
      top_p: null,
      seed: 7,
      max_tokens: 800,
      response_format: "json_schema",
      system_prompt_sha256: sha256("You are a careful critic of change plans."),
      user_template_sha256: sha256("Review this plan: {{plan}}"),
      user_prompt_sha256: sha256("Review this plan: {}"),
      schema_sha256: hashCanonical(CRITIC_SCHEMA),
      sdk: "openai",
      sdk_version: expect.stringMatching(/^6\./),
    });
    expect(call).toMatchObject({
      outcome: "ok",
      attempt: 0,
      usage: { input_tokens: 100, output_tokens: 20 },
      cost_usd: estimateCost("gpt-4o-mini", 100, 20),
      reported: { model: "gpt-4o-mini", system_fingerprint: "fp_test" },
      model_mismatch: null,
      http_status: 200,
      cached: false,
    });
    expect(call!.cost_usd).toBeGreaterThan(0);
    expect(call!.transport_attempts).toEqual([{ index: 0, latency_ms: 0, outcome: "ok", error_class: null, http_status: 200 }]);
  });

  it("sends the text it hashed: the body's canonical JSON, the JSON value the SDK would have written", async () => {
    const { client, server } = await setup([ok(VALID_CRITIC_ANSWER)]);
    const request = criticRequest({ trial: 2 });
    const result = await client.structured(request, CriticOutputSchema);
    expect(result.ok).toBe(true);
    const sent = server.received[0]!;
    expect(sent.headers["content-type"]).toBe("application/json");
    expect(sent.raw).toBe(canonicalJson(sent.body));
    expect(JSON.parse(sent.raw)).toEqual(JSON.parse(JSON.stringify(sent.body)));
    expect(result.calls[0]!.request_sha256).toBe(
      hashCanonical({ provider: "openai", base_url: `${server.url}/v1`, body: sent.body, role: "critic", trial: 2 }),
    );
  });

  it("honours Retry-After on 429 through the injected sleep", async () => {
    const { client, clock } = await setup([
      { status: 429, body: errorBody("slow down", "rate_limit_error"), headers: { "retry-after": "7" } },
      ok(VALID_CRITIC_ANSWER),
    ]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    expect(clock.waits).toEqual([7000]);
    expect(result.calls[0]!.transport_attempts.map((a) => [a.outcome, a.error_class, a.http_status])).toEqual([
      ["error", "rate_limited", 429],
      ["ok", null, 200],
    ]);
    // the call's latency is its time with the provider, not the 7 s the client waited between sends
    expect(result.calls[0]!.latency_ms).toBe(0);
  });

  it("records latency around the transport alone, not the harness's work before the send or after the answer", async () => {
    const clock = fakeClock();
    // the server takes 40 ms of the (fake) clock; the budget hook before the send and the validation after it take 500 and 1000
    const server = await startServer(() => {
      void clock.sleep(40);
      return ok(VALID_CRITIC_ANSWER);
    });
    const critic: RoleConfig = { provider: "openai", model: "gpt-4o-mini", baseUrl: `${server.url}/v1` };
    const beforeCall = () => {
      void clock.sleep(500);
      return "ok" as const;
    };
    const client = createModelClient({ planner: critic, critic }, { now: clock.now, sleep: clock.sleep, random: () => 0, env: {}, beforeCall });
    const slowValidation = CriticOutputSchema.transform((v) => {
      void clock.sleep(1000);
      return v;
    });
    const result = await client.structured(criticRequest(), slowValidation);
    expect(result.ok).toBe(true);
    expect(result.calls.map((c) => [c.latency_ms, c.transport_attempts.map((a) => a.latency_ms)])).toEqual([[40, [40]]]);
  });

  it("retries a 500 with backoff, then succeeds", async () => {
    const { client, clock } = await setup([{ status: 500, body: errorBody("boom") }, ok(VALID_CRITIC_ANSWER)]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    expect(clock.waits).toEqual([250]); // half of the 500 ms base: jitter drew 0
    expect(result.calls[0]!.transport_attempts.map((a) => a.error_class)).toEqual(["server_error", null]);
  });

  it("gives up on a timeout after the retry cap with a typed provider_error", async () => {
    const { client, clock, server } = await setup([{ hang: true }], { timeoutMs: 150 }, 1);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.outcome).toBe("provider_error");
    expect(result.rawText).toBeNull();
    expect(server.received).toHaveLength(2);
    expect(clock.waits).toHaveLength(1);
    const [call] = result.calls;
    expect(call).toMatchObject({ outcome: "error", error_class: "timeout", usage: null, cost_usd: null, raw_text: null });
    expect(call!.transport_attempts.map((a) => a.error_class)).toEqual(["timeout", "timeout"]);
  });

  it("treats a truncated body as a connection failure and retries it", async () => {
    const { client } = await setup([{ truncate: chatCompletion(JSON.stringify(VALID_CRITIC_ANSWER)) }, ok(VALID_CRITIC_ANSWER)]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    expect(result.calls[0]!.transport_attempts.map((a) => a.error_class)).toEqual(["connection", null]);
  });

  it("feeds a schema failure back to the model and accepts the corrected answer", async () => {
    const { client, server } = await setup([ok({ findings: [{ family: "risk" }] }), ok(VALID_CRITIC_ANSWER)]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    expect(result.calls.map((c) => [c.attempt, c.outcome])).toEqual([
      [0, "invalid_output"],
      [1, "ok"],
    ]);
    expect(result.calls[0]!.validation_error).toMatch(/findings\[0\]\.severity/);
    const second = server.received[1]!.body.messages as { role: string; content: string }[];
    expect(second.at(-2)).toEqual({ role: "assistant", content: JSON.stringify({ findings: [{ family: "risk" }] }) });
    expect(second.at(-1)!.role).toBe("user");
    expect(second.at(-1)!.content).toContain("findings[0].severity");
    // The correction changes the wire request, so its key differs; the prompt hashes do not.
    expect(result.calls[0]!.request_sha256).not.toBe(result.calls[1]!.request_sha256);
    expect(result.calls[0]!.context).toEqual(result.calls[1]!.context);
  });

  it("rejects an answer the server ended at its output limit or content filter, though it parses, and accepts the full one after", async () => {
    // A compatible server may stop a JSON answer at a point that still parses: the rest was never written.
    const ended = (finish_reason: string): Step => ({ status: 200, body: chatCompletion(JSON.stringify({ findings: [] }), { finish_reason }) });
    const { client, server } = await setup([ended("length"), ended("content_filter"), ok(VALID_CRITIC_ANSWER)]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toEqual(VALID_CRITIC_ANSWER);
    expect(result.calls.map((c) => [c.outcome, c.error_class, c.validation_error])).toEqual([
      ["invalid_output", "incomplete", "the answer ended before it was complete (finish_reason length: the output limit)"],
      ["invalid_output", "incomplete", "the answer ended before it was complete (finish_reason content_filter: the provider's content filter)"],
      ["ok", null, null],
    ]);
    const fedBack = (server.received[1]!.body.messages as { role: string; content: string }[]).at(-1)!;
    expect(fedBack.role).toBe("user");
    expect(fedBack.content).toContain("finish_reason length");
  });

  it("reads a compatible server's answer given as content parts as its text, never as a non-string raw text", async () => {
    const parts = (content: unknown): Step => ({ status: 200, body: chatCompletion(content) });
    const { client } = await setup([parts([{ type: "text", text: JSON.stringify(VALID_CRITIC_ANSWER) }])]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toEqual(VALID_CRITIC_ANSWER);
    expect(result.calls[0]!.raw_text).toBe(JSON.stringify(VALID_CRITIC_ANSWER));
    // Content of no known shape is no text: invalid output, recorded as a string.
    const odd = await setup([parts({ json: true }), parts(42), parts(null)]);
    const failed = await odd.client.structured(criticRequest(), CriticOutputSchema);
    expect(failed.ok).toBe(false);
    expect(failed.calls.map((c) => [c.outcome, typeof c.raw_text])).toEqual([
      ["invalid_output", "string"],
      ["invalid_output", "string"],
      ["invalid_output", "string"],
    ]);
  });

  it("keeps what a server says about itself only when it is text", async () => {
    const body = chatCompletion(JSON.stringify(VALID_CRITIC_ANSWER));
    const { client } = await setup([{ status: 200, body: { ...body, model: 42, system_fingerprint: { v: 1 } } }]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    expect(result.calls[0]!.reported).toEqual({ model: null, system_fingerprint: null });
    expect(result.calls[0]!.model_mismatch).toBeNull();
  });

  it("reads an error envelope sent with 200 as a failed call (provider_error after the retries, its message kept), not as the model's bad answer", async () => {
    const envelope: Step = { status: 200, body: { error: { message: "upstream model unavailable", type: "server_error", code: 502 } } };
    const { client } = await setup([envelope, envelope, envelope], {}, 2);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result).toMatchObject({ ok: false, outcome: "provider_error" });
    if (result.ok) return;
    expect(result.error).toContain("server_error (HTTP 200): HTTP 200 with an error body: upstream model unavailable");
    expect(result.calls.map((c) => [c.outcome, c.error_class, c.raw_text])).toEqual([["error", "server_error", null]]);
    // Sent with a success status, the failure may have been billed: its cost is unknown, not 0.
    expect(result.calls[0]!.cost_usd).toBeNull();
    // A page that is no API answer at all (a web UI at a mistaken base URL) is a failed call too.
    const page: Step = { status: 200, body: "<!doctype html>\n<html><title>Open WebUI</title></html>", headers: { "content-type": "text/html" } };
    const web = await setup([page, page, page], {}, 2);
    const notApi = await web.client.structured(criticRequest(), CriticOutputSchema);
    expect(notApi).toMatchObject({ ok: false, outcome: "provider_error" });
    if (!notApi.ok) expect(notApi.error).toContain("HTTP 200 with a body that is not the API's JSON: <!doctype html> <html><title>Open WebUI</title></html>");
    // A body with no answer and no envelope is still the model's (bad) answer.
    const noChoices: Step = { status: 200, body: { id: "chatcmpl-1", object: "chat.completion", model: "gpt-4o-mini" } };
    const odd = await setup([noChoices, noChoices, noChoices]);
    const bad = await odd.client.structured(criticRequest(), CriticOutputSchema);
    expect(bad).toMatchObject({ ok: false, outcome: "invalid_output" });
  });

  it("records a final invalid output with its raw text", async () => {
    const { client, server } = await setup([ok("I think the plan is fine.")]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.outcome).toBe("invalid_output");
    expect(result.rawText).toBe("I think the plan is fine.");
    expect(server.received).toHaveLength(3);
    expect(result.calls.map((c) => [c.outcome, c.error_class, c.raw_text])).toEqual([
      ["invalid_output", "invalid_json", "I think the plan is fine."],
      ["invalid_output", "invalid_json", "I think the plan is fine."],
      ["invalid_output", "invalid_json", "I think the plan is fine."],
    ]);
  });

  it("falls back to JSON mode when a compatible server rejects json_schema, and stays there", async () => {
    const { client, server } = await setup((r: { body: { response_format?: { type: string } } }) =>
      r.body.response_format?.type === "json_schema"
        ? { status: 400, body: errorBody("response_format type json_schema is not supported", "invalid_request_error") }
        : ok(VALID_CRITIC_ANSWER),
    );
    const first = await client.structured(criticRequest(), CriticOutputSchema);
    const second = await client.structured(criticRequest({ trial: 1 }), CriticOutputSchema);
    expect(first.ok && second.ok).toBe(true);
    expect(server.received.map((r) => (r.body.response_format as { type: string }).type)).toEqual(["json_schema", "json_object", "json_object"]);
    const system = (server.received[1]!.body.messages as { role: string; content: string }[]).filter((m) => m.role === "system");
    expect(system[1]!.content).toContain('"findings"');
    const call = first.calls[0]!;
    expect(call.context.response_format).toBe("json_object");
    expect(call.context.schema_sha256).toBe(hashCanonical(CRITIC_SCHEMA));
    expect(call.transport_attempts.map((a) => [a.error_class, a.http_status])).toEqual([
      ["format_unsupported", 400],
      [null, 200],
    ]);
  });

  it("keeps request fields when the server reports another model, and flags the mismatch", async () => {
    const { client } = await setup([
      ok(VALID_CRITIC_ANSWER, { model: "gpt-4o-mini-2024-07-18", system_fingerprint: "fp_other" }),
      ok(VALID_CRITIC_ANSWER, { model: "llama-3.1-8b" }),
    ]);
    const snap = await client.structured(criticRequest(), CriticOutputSchema);
    const other = await client.structured(criticRequest({ trial: 1 }), CriticOutputSchema);
    expect(snap.calls[0]!.context.model).toBe("gpt-4o-mini");
    expect(snap.calls[0]!.reported).toEqual({ model: "gpt-4o-mini-2024-07-18", system_fingerprint: "fp_other" });
    expect(snap.calls[0]!.model_mismatch).toBe("snapshot");
    expect(other.calls[0]!.context.model).toBe("gpt-4o-mini");
    expect(other.calls[0]!.model_mismatch).toBe("different");
    expect(other.calls[0]!.context).toEqual(snap.calls[0]!.context);
  });

  it("changing one character of the system prompt changes exactly system_prompt_sha256", async () => {
    const { client } = await setup([ok(VALID_CRITIC_ANSWER)]);
    const a = await client.structured(criticRequest(), CriticOutputSchema);
    const b = await client.structured(criticRequest({ system: "You are a careful critic of change plans!" }), CriticOutputSchema);
    const ca = a.calls[0]!.context as Record<string, unknown>;
    const cb = b.calls[0]!.context as Record<string, unknown>;
    const changed = Object.keys(ca).filter((k) => ca[k] !== cb[k]);
    expect(changed).toEqual(["system_prompt_sha256"]);
  });

  it("does not retry a 400 that is not about the response format", async () => {
    const { client, server, clock } = await setup([{ status: 400, body: errorBody("messages: too long", "invalid_request_error") }]);
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.outcome).toBe("provider_error");
    expect(result.error).toMatch(/bad_request \(HTTP 400\)/);
    expect(server.received).toHaveLength(1);
    expect(clock.waits).toEqual([]);
    expect(result.calls[0]!.cost_usd).toBe(0); // the server refused: nothing was generated
  });
});
