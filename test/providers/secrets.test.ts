import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CriticOutputSchema } from "../../src/formats/findings.ts";
import { createModelClient, type RoleConfig } from "../../src/providers/client.ts";
import { chatCompletion, anthropicToolUse, useFakeServers, type Received, type Step } from "./fake-server.ts";
import { criticRequest, fakeClock, VALID_CRITIC_ANSWER } from "./helpers.ts";

// Built from parts so that no key-shaped literal sits in the repository for secret scanners to flag.
const OPENAI_KEY = ["sk", "DISTINCTIVE-openai-9f8e7d6c5b4a3921"].join("-");
const ANTHROPIC_KEY = ["sk", "ant", "DISTINCTIVE-anthropic-1a2b3c4d5e"].join("-");
const HEADER_SECRET = "hdr-DISTINCTIVE-proxy-token-777";

const startServer = useFakeServers();
afterEach(() => {
  vi.restoreAllMocks();
});

/** Echo every credential the client sent back inside the error text, as a careless server might. */
const echo = (r: Received) => `bad credentials: ${r.headers.authorization ?? ""} ${r.headers["x-api-key"] ?? ""} ${r.headers["x-proxy-auth"] ?? ""}`;

function capturedOutput(): () => string {
  const chunks: string[] = [];
  const grab = (...args: unknown[]) => void chunks.push(args.map(String).join(" "));
  for (const m of ["log", "info", "warn", "error", "debug"] as const) vi.spyOn(console, m).mockImplementation(grab);
  vi.spyOn(process.stdout, "write").mockImplementation((c) => (grab(c), true));
  vi.spyOn(process.stderr, "write").mockImplementation((c) => (grab(c), true));
  return () => chunks.join("\n");
}

describe("API keys never leave the request", () => {
  for (const provider of ["openai", "anthropic"] as const) {
    it(`${provider}: the key is sent but absent from every record, event, result, error and log`, async () => {
      const answer = (r: Received, i: number): Step => {
        if (i === 0) return { status: 401, body: { type: "error", error: { message: echo(r), type: "authentication_error" } } };
        if (i === 1) return { status: 500, body: { type: "error", error: { message: echo(r), type: "api_error" } } };
        return { status: 200, body: provider === "openai" ? chatCompletion(JSON.stringify(VALID_CRITIC_ANSWER)) : anthropicToolUse(VALID_CRITIC_ANSWER) };
      };
      const server = await startServer(answer);
      const output = capturedOutput();
      const clock = fakeClock();
      const events: unknown[] = [];
      const role: RoleConfig = {
        provider,
        model: "m-1",
        baseUrl: `${server.url}/v1?key=${OPENAI_KEY}`,
        headers: { "x-proxy-auth": HEADER_SECRET },
      };
      const client = createModelClient(
        { planner: role, critic: role },
        { ...clock, random: () => 0, env: { OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY }, onCall: (r) => events.push(r) },
      );
      const failed = await client.structured(criticRequest(), CriticOutputSchema); // 401: not retried
      const recovered = await client.structured(criticRequest({ trial: 1 }), CriticOutputSchema); // 500, then ok
      expect(failed.ok).toBe(false);
      expect(recovered.ok).toBe(true);
      const key = provider === "openai" ? OPENAI_KEY : ANTHROPIC_KEY;
      // The test can fail: the server did receive the key and echoed it.
      expect(JSON.stringify(server.received.map((r) => r.headers))).toContain(key);
      expect(JSON.stringify(server.received.map((r) => r.headers))).toContain(HEADER_SECRET);
      const everything = [JSON.stringify(failed), JSON.stringify(recovered), JSON.stringify(events), output(), failed.ok ? "" : failed.error].join("\n");
      expect(failed.ok ? "" : failed.error).toContain("[redacted]");
      for (const secret of [OPENAI_KEY, ANTHROPIC_KEY, HEADER_SECRET]) expect(everything).not.toContain(secret);
    });
  }

  it("masks a credential a server echoes inside its answer, in the raw text and in the value read from it", async () => {
    const echoed = (r: Received): Step => {
      const finding = { ...VALID_CRITIC_ANSWER.findings[0]!, message: `proxy said ${r.headers["x-proxy-auth"] ?? ""}` };
      return { status: 200, body: chatCompletion(JSON.stringify({ findings: [finding] })) };
    };
    const server = await startServer(echoed);
    const role: RoleConfig = { provider: "openai", model: "m-1", baseUrl: `${server.url}/v1`, headers: { "x-proxy-auth": HEADER_SECRET } };
    const client = createModelClient({ planner: role, critic: role }, { ...fakeClock(), env: {} });
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.findings[0]!.message).toBe("proxy said [redacted]");
    expect(JSON.stringify(result)).not.toContain(HEADER_SECRET);
  });

  it("a header that is not a credential masks nothing: a model's answer that names its value stays as the model wrote it", async () => {
    // A non-secret header (recorded in clear in the manifest) whose value a plan may well contain.
    const headers = { "x-deployment": "production", "openai-project": "proj-migrations" };
    const finding = { ...VALID_CRITIC_ANSWER.findings[0]!, message: "cutover_production runs in production before proj-migrations signs off" };
    const server = await startServer([{ status: 200, body: chatCompletion(JSON.stringify({ findings: [finding] })) }]);
    const role: RoleConfig = { provider: "openai", model: "m-1", baseUrl: `${server.url}/v1`, headers };
    const result = await createModelClient({ planner: role, critic: role }, { ...fakeClock(), env: {} }).structured(criticRequest(), CriticOutputSchema);
    expect(server.received[0]!.headers["x-deployment"]).toBe("production");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.findings[0]!.message).toBe(finding.message);
    expect(result.rawText).toContain("cutover_production runs in production");
    expect(result.calls[0]!.raw_text).toContain("cutover_production runs in production");
  });

  it("a Bearer token or a Basic credential echoed alone is masked, and so is a reply the cache keeps", async () => {
    const TOKEN = ["tok", "DISTINCTIVE", "b3a9c0e7d1"].join("-");
    const BASIC_PASS = ["pw", "DISTINCTIVE", "5e2f8a"].join("-");
    const basic = Buffer.from(`svc:${BASIC_PASS}`).toString("base64");
    const server = await startServer((r: Received, i: number): Step => {
      if (i === 0) return { status: 401, body: { error: { message: `invalid token ${TOKEN}`, type: "authentication_error" } } };
      const finding = { ...VALID_CRITIC_ANSWER.findings[0]!, message: `proxy user svc:${BASIC_PASS} via ${String(r.headers.authorization).split(" ")[1]}` };
      return { status: 200, body: chatCompletion(JSON.stringify({ findings: [finding] })) };
    });
    const cacheDir = mkdtempSync(join(tmpdir(), "ft-secret-cache-"));
    const bearer: RoleConfig = { provider: "openai", model: "m-1", baseUrl: `${server.url}/v1`, headers: { authorization: `Bearer ${TOKEN}` } };
    const failed = await createModelClient({ planner: bearer, critic: bearer, maxRetries: 0 }, { ...fakeClock(), env: {} }).structured(
      criticRequest(),
      CriticOutputSchema,
    );
    expect(failed.ok ? "" : failed.error).toContain("invalid token [redacted]");
    const viaBasic: RoleConfig = { ...bearer, headers: { authorization: `Basic ${basic}` } };
    const cached = await createModelClient(
      { planner: viaBasic, critic: viaBasic, cache: { enabled: true, dir: cacheDir } },
      { ...fakeClock(), env: {} },
    ).structured(criticRequest(), CriticOutputSchema);
    expect(cached.ok).toBe(true);
    const files = readdirSync(cacheDir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
    expect(files.length).toBeGreaterThan(0);
    const kept = files.map((d) => readFileSync(join(d.parentPath, d.name), "utf8")).join("\n");
    // The test can fail: the server did echo both.
    expect(JSON.stringify(server.received.map((r) => r.headers))).toContain(basic);
    for (const secret of [TOKEN, BASIC_PASS, basic]) {
      expect(JSON.stringify(failed)).not.toContain(secret);
      expect(JSON.stringify(cached)).not.toContain(secret);
      expect(kept).not.toContain(secret);
    }
  });

  it("a base URL's query goes with every request, after the API path (an api-version, a key)", async () => {
    for (const provider of ["openai", "anthropic"] as const) {
      const server = await startServer([
        { status: 200, body: provider === "openai" ? chatCompletion(JSON.stringify(VALID_CRITIC_ANSWER)) : anthropicToolUse(VALID_CRITIC_ANSWER) },
      ]);
      // Each SDK's own base: OpenAI's ends in /v1, Anthropic's is the host (its path is /v1/messages).
      const base = provider === "openai" ? `${server.url}/v1` : server.url;
      const role: RoleConfig = { provider, model: "m-1", baseUrl: `${base}?api-version=2024-10-21&key=a+b%2Fc` };
      const result = await createModelClient({ planner: role, critic: role }, { ...fakeClock(), env: {} }).structured(criticRequest(), CriticOutputSchema);
      expect(result.ok, provider).toBe(true);
      const path = provider === "openai" ? "/v1/chat/completions" : "/v1/messages";
      expect(server.received).toHaveLength(1);
      const sent = new URL(server.received[0]!.path, "http://x");
      // The same values, whichever way the SDK encodes them (a space as + or %20).
      expect([sent.pathname, [...sent.searchParams]]).toEqual([
        path,
        [
          ["api-version", "2024-10-21"],
          ["key", "a b/c"],
        ],
      ]);
    }
  });

  it("a query credential a server echoes percent-encoded, as the request carried it, is masked too", async () => {
    const written = "k+DISTINCT%2Fsecret9";
    const server = await startServer((r: Received): Step => ({
      status: 400,
      body: { error: { message: `no route for ${r.path}`, type: "invalid_request_error" } },
    }));
    const role: RoleConfig = { provider: "openai", model: "m-1", baseUrl: `${server.url}/v1?key=${written}` };
    const failed = await createModelClient({ planner: role, critic: role }, { ...fakeClock(), env: {} }).structured(criticRequest(), CriticOutputSchema);
    const error = failed.ok ? "" : failed.error;
    // The test can fail: the server echoed the path with the key in it.
    expect(server.received[0]!.path).toContain("DISTINCT");
    expect(error).toContain("key=[redacted]");
    for (const form of [written, "k%20DISTINCT%2Fsecret9", "k DISTINCT/secret9"]) expect(error).not.toContain(form);
  });

  it("records the base URL without credentials or query", async () => {
    const server = await startServer([{ status: 200, body: chatCompletion(JSON.stringify(VALID_CRITIC_ANSWER)) }]);
    const u = new URL(server.url);
    const role: RoleConfig = { provider: "openai", model: "m-1", baseUrl: `http://alice:${OPENAI_KEY}@${u.host}/v1/?token=${OPENAI_KEY}` };
    const client = createModelClient({ planner: role, critic: role }, { ...fakeClock(), env: {} });
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.calls[0]!.context.base_url).toBe(`http://${u.host}/v1`);
    expect(JSON.stringify(result)).not.toContain(OPENAI_KEY);
  });
});
