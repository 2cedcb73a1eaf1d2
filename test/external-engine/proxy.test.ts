import { afterEach, describe, expect, it } from "vitest";
import { startRecordingProxy, type ProxySession, type RecordingProxy } from "../../harness/engine/proxy.ts";
import type { EngineManifest } from "../../harness/engine/manifest.ts";
import { createModelClient } from "../../src/providers/client.ts";
import type { ClientConfig } from "../../src/providers/config.ts";
import { anthropicToolUse, chatCompletion, errorBody, useFakeServers, type Step } from "../providers/fake-server.ts";

const KEY = "sk-proxy-test-secret-0123456789";
const open: RecordingProxy[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});
const server = useFakeServers();

async function proxyFor(
  steps: Step[] | ((req: { body: Record<string, unknown> }, i: number) => Step),
  o: { speaks?: "openai" | "anthropic"; normalize?: EngineManifest["replay"]["normalize"]; timeoutMs?: number } = {},
) {
  const upstream = await server(steps);
  const speaks = o.speaks ?? "openai";
  const role = {
    provider: speaks,
    model: speaks === "openai" ? "gpt-4o-mini" : "claude-sonnet-4-5",
    baseUrl: speaks === "openai" ? `${upstream.url}/v1` : upstream.url,
    timeoutMs: o.timeoutMs ?? 5000,
  };
  const config: ClientConfig = { planner: role, critic: role, maxRetries: 2 };
  const client = createModelClient(config, { env: { OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY }, sleep: async () => {} });
  const proxy = await startRecordingProxy({ forwarder: client, speaks, normalize: o.normalize ?? [] });
  open.push(proxy);
  return { upstream, proxy };
}

/** A request as an engine sends it through its role's base URL. */
async function post(session: ProxySession, role: "planner" | "critic", body: unknown, token = session.roles[role].token, path = "/chat/completions") {
  const res = await fetch(`${session.roles[role].base_url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "user-agent": "engine-under-test/2.1" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const chat = (user: string, extra: Record<string, unknown> = {}) => ({
  model: "gpt-4o-mini",
  messages: [
    { role: "system", content: "You plan." },
    { role: "user", content: user },
  ],
  ...extra,
});

describe("the recording proxy", () => {
  it("forwards a request as the engine sent it and records its decision context from that request", async () => {
    const { upstream, proxy } = await proxyFor([{ status: 200, body: chatCompletion('{"ok":true}') }]);
    const session = proxy.open({ trialKey: "corpus/db-01/0", itemId: "db-01", trial: 0 });
    const sent = chat("plan it", { response_format: { type: "json_object" }, max_tokens: 16384 });
    const answer = await post(session, "planner", sent);
    expect(answer.status).toBe(200);
    expect((answer.body.choices as { message: { content: string } }[])[0]!.message.content).toBe('{"ok":true}');
    // Upstream got the engine's body, with fieldtest's key, never the engine's token.
    expect(upstream.received[0]!.body).toEqual(sent);
    expect(upstream.received[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    const { calls } = await session.close();
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call!.context).toMatchObject({
      provider: "openai",
      model: "gpt-4o-mini",
      temperature: null,
      top_p: null,
      seed: null,
      max_tokens: 16384,
      response_format: "json_object",
      user_template_sha256: null,
    });
    expect(call!.proxy).toEqual({ seq: 0, user_agent: "engine-under-test/2.1", retry_of: null });
    expect(call!.outcome).toBe("ok");
    expect(call!.usage).toEqual({ input_tokens: 100, output_tokens: 20 });
  });

  it("records a temperature and a seed only when the engine sent them", async () => {
    const { proxy } = await proxyFor([{ status: 200, body: chatCompletion("{}") }]);
    const session = proxy.open({ trialKey: "corpus/g/0", itemId: "g", trial: 0 });
    await post(session, "planner", chat("a", { temperature: 0.7, seed: 7, tools: [{ type: "function", function: { name: "plan", parameters: {} } }] }));
    const [call] = (await session.close()).calls;
    expect(call!.context).toMatchObject({ temperature: 0.7, seed: 7, response_format: "tool" });
    expect(call!.context.schema_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("keeps concurrent trials apart: each has its own URL, token and records", async () => {
    const echo = (req: { body: Record<string, unknown> }): Step => ({
      status: 200,
      body: chatCompletion(JSON.stringify({ echo: (req.body.messages as { content: string }[])[1]!.content })),
      delayMs: 20,
    });
    const { proxy } = await proxyFor(echo);
    const sessions = [0, 1, 2].map((trial) => proxy.open({ trialKey: `corpus/g/${trial}`, itemId: "g", trial }));
    expect(new Set(sessions.map((s) => s.roles.planner.base_url)).size).toBe(3);
    await Promise.all(sessions.flatMap((s, i) => [post(s, "planner", chat(`p${i}`)), post(s, "critic", chat(`c${i}`))]));
    // A trial's token opens no other trial.
    const crossed = await post(sessions[0]!, "planner", chat("x"), sessions[1]!.roles.planner.token);
    expect(crossed.status).toBe(401);
    const closed = await Promise.all(sessions.map((s) => s.close()));
    closed.forEach(({ calls, refused }, i) => {
      expect(calls.map((c) => [c.role, JSON.parse(c.raw_text!).echo])).toEqual(
        expect.arrayContaining([
          ["planner", `p${i}`],
          ["critic", `c${i}`],
        ]),
      );
      expect(calls).toHaveLength(2);
      expect(refused).toBe(i === 0 ? 1 : 0);
    });
  });

  it("refuses what no model should see: a wrong token, a body that is not JSON, streaming, another API, a closed trial", async () => {
    const { upstream, proxy } = await proxyFor([{ status: 200, body: chatCompletion("{}") }]);
    const session = proxy.open({ trialKey: "corpus/g/0", itemId: "g", trial: 0 });
    expect((await post(session, "planner", chat("a"), "wrong")).status).toBe(401);
    expect((await post(session, "planner", "{not json")).status).toBe(400);
    const streamed = await post(session, "planner", chat("a", { stream: true }));
    expect(streamed.status).toBe(400);
    expect((streamed.body.error as { message: string }).message).toMatch(/does not stream/);
    expect((await post(session, "planner", chat("a"), undefined, "/messages")).status).toBe(404);
    const { calls, refused } = await session.close();
    expect(calls).toEqual([]);
    expect(refused).toBe(4);
    expect(upstream.received).toHaveLength(0);
    expect((await post(session, "planner", chat("late"))).status).toBe(404);
  });

  it("marks an identical resend as a retry of the first request, and counts rounds by its own order", async () => {
    const { proxy } = await proxyFor([{ status: 200, body: chatCompletion("{}") }]);
    const session = proxy.open({ trialKey: "corpus/g/0", itemId: "g", trial: 0 });
    await post(session, "planner", chat("plan"));
    await post(session, "critic", chat("review"));
    await post(session, "critic", chat("review"));
    await post(session, "planner", chat("revise"));
    await post(session, "critic", chat("review again"));
    const { calls } = await session.close();
    expect(calls.map((c) => [c.role, c.round, c.attempt, c.proxy!.retry_of])).toEqual([
      ["planner", 0, 0, null],
      ["critic", 0, 0, null],
      ["critic", 0, 1, 1],
      ["planner", 1, 0, null],
      ["critic", 1, 0, null],
    ]);
  });

  it("keys a request for replay by its body after the normalisation rules, and sends it unchanged", async () => {
    const normalize = [{ pattern: "created_at: [0-9T:.Z-]+", replace: "created_at: -" }];
    const { upstream, proxy } = await proxyFor([{ status: 200, body: chatCompletion("{}") }], { normalize });
    const session = proxy.open({ trialKey: "corpus/g/0", itemId: "g", trial: 0 });
    await post(session, "critic", chat("plan created_at: 2026-12-05T10:00:00Z"));
    await post(session, "critic", chat("plan created_at: 2026-12-05T10:00:09Z"));
    const { calls } = await session.close();
    expect(calls[0]!.request_sha256).toBe(calls[1]!.request_sha256);
    expect(calls[1]!.proxy!.retry_of).toBe(0);
    expect((upstream.received[1]!.body.messages as { content: string }[])[1]!.content).toBe("plan created_at: 2026-12-05T10:00:09Z");
  });

  it("retries a 429 with its Retry-After and a 500 for the engine, which sees only the answer", async () => {
    const { upstream, proxy } = await proxyFor([
      { status: 429, body: errorBody("slow down", "rate_limit"), headers: { "retry-after": "0" } },
      { status: 500, body: errorBody("oops") },
      { status: 200, body: chatCompletion("{}") },
    ]);
    const session = proxy.open({ trialKey: "corpus/g/0", itemId: "g", trial: 0 });
    expect((await post(session, "planner", chat("a"))).status).toBe(200);
    const [call] = (await session.close()).calls;
    expect(upstream.received).toHaveLength(3);
    expect(call!.transport_attempts.map((a) => [a.outcome, a.http_status])).toEqual([
      ["error", 429],
      ["error", 500],
      ["ok", 200],
    ]);
    expect(call!.outcome).toBe("ok");
  });

  it("answers a call no retry could save with the provider's error, in the engine's wire format, and records it as failed", async () => {
    const { proxy } = await proxyFor([{ status: 503, body: errorBody("down") }]);
    const session = proxy.open({ trialKey: "corpus/g/0", itemId: "g", trial: 0 });
    const failed = await post(session, "critic", chat("a"));
    expect(failed.status).toBe(503);
    expect((failed.body.error as { message: string; code: string }).code).toBe("server_error");
    const [call] = (await session.close()).calls;
    expect(call).toMatchObject({ outcome: "error", error_class: "server_error", http_status: 503 });
    expect(call!.transport_attempts).toHaveLength(3);
  });

  it("answers a body cut short and a timeout as a gateway would (502, 504)", async () => {
    const cut = await proxyFor([{ truncate: chatCompletion("{}") }]);
    const s1 = cut.proxy.open({ trialKey: "corpus/g/0", itemId: "g", trial: 0 });
    expect((await post(s1, "planner", chat("a"))).status).toBe(502);
    expect((await s1.close()).calls[0]).toMatchObject({ outcome: "error", error_class: "connection", cost_usd: null });
    const hung = await proxyFor([{ hang: true }], { timeoutMs: 200 });
    const s2 = hung.proxy.open({ trialKey: "corpus/g/0", itemId: "g", trial: 0 });
    expect((await post(s2, "planner", chat("a"))).status).toBe(504);
    expect((await s2.close()).calls[0]).toMatchObject({ outcome: "error", error_class: "timeout" });
  });

  it("never hands the engine a real credential a server echoes back", async () => {
    const { proxy } = await proxyFor([{ status: 200, body: chatCompletion(`your key is ${KEY}`, { model: `echo-${KEY}` }) }]);
    const session = proxy.open({ trialKey: "corpus/g/0", itemId: "g", trial: 0 });
    const answer = await post(session, "planner", chat("a"));
    expect(JSON.stringify(answer.body)).not.toContain(KEY);
    const [call] = (await session.close()).calls;
    expect(call!.raw_text).not.toContain(KEY);
  });

  it("speaks Anthropic's Messages API for an engine that does (its token in x-api-key), forwarding with fieldtest's key", async () => {
    const { upstream, proxy } = await proxyFor([{ status: 200, body: anthropicToolUse({ findings: [] }) }], { speaks: "anthropic" });
    const session = proxy.open({ trialKey: "corpus/g/0", itemId: "g", trial: 0 });
    const body = {
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      system: "You review.",
      messages: [{ role: "user", content: "plan" }],
      tools: [{ name: "answer", input_schema: {} }],
      tool_choice: { type: "tool", name: "answer" },
    };
    const res = await fetch(`${session.roles.critic.base_url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": session.roles.critic.token, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { content: { type: string }[] }).content[0]!.type).toBe("tool_use");
    const { authorization, "x-api-key": apiKey } = upstream.received[0]!.headers;
    expect([authorization, apiKey]).toContain(`Bearer ${KEY}`);
    expect(JSON.stringify(upstream.received[0]!.headers)).not.toContain(session.roles.critic.token);
    const [call] = (await session.close()).calls;
    expect(call!.context).toMatchObject({ provider: "anthropic", max_tokens: 1024, response_format: "tool", temperature: null });
    expect(JSON.parse(call!.raw_text!)).toEqual({ findings: [] });
  });
});
