import { execa } from "execa";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { CriticOutputSchema } from "../../src/formats/findings.ts";
import type { CallRecord } from "../../src/formats/records.ts";
import { createModelClient, type RoleConfig } from "../../src/providers/client.ts";
import { createSendThread, REHEARSED_BURST, type SendThread } from "../../src/providers/send-thread/thread.ts";
import { compiled } from "../helpers/compiled.ts";
import { anthropicToolUse, chatCompletion, errorBody, useFakeServers, type Step } from "./fake-server.ts";
import { criticRequest, fakeClock, VALID_CRITIC_ANSWER } from "./helpers.ts";

const startServer = useFakeServers();
const KEYS = { OPENAI_API_KEY: "sk-openai-thread-test-0000", ANTHROPIC_API_KEY: "sk-ant-thread-test-0000" };
/** The thread's script as the build writes it (every module runs compiled). */
const THREAD_SCRIPT = pathToFileURL(compiled(join(import.meta.dirname, "../../src/providers/send-thread/worker.ts")));

/** What one scenario sends and answers, per provider: the same failure in each wire format. */
const answer = {
  openai: (content: unknown, over = {}) => chatCompletion(JSON.stringify(content), over),
  anthropic: (input: unknown) => anthropicToolUse(input),
};
const SCENARIOS: { name: string; provider: "openai" | "anthropic"; steps: Step[]; role?: Partial<RoleConfig> }[] = [
  ...(["openai", "anthropic"] as const).flatMap((provider) => [
    { name: "an answer", provider, steps: [{ status: 200, body: answer[provider](VALID_CRITIC_ANSWER) }] },
    {
      name: "429 with Retry-After, then an answer",
      provider,
      steps: [
        { status: 429, body: errorBody("slow down", "rate_limit_error"), headers: { "retry-after": "7" } },
        { status: 200, body: answer[provider](VALID_CRITIC_ANSWER) },
      ],
    },
    { name: "5xx until the retries run out", provider, steps: [{ status: 503, body: errorBody("no healthy upstream") }] },
    // Three attempts each wait the timeout out, on this thread and on the other: kept short.
    { name: "a hung server past the timeout", provider, steps: [{ hang: true } as Step], role: { timeoutMs: 50 } },
    {
      name: "a body cut short, then an answer",
      provider,
      steps: [{ truncate: answer[provider](VALID_CRITIC_ANSWER) } as Step, { status: 200, body: answer[provider](VALID_CRITIC_ANSWER) }],
    },
    { name: "an error envelope sent with 200", provider, steps: [{ status: 200, body: errorBody("upstream overloaded") }] },
    { name: "a page that is not the API", provider, steps: [{ status: 200, body: "<html>sign in</html>", headers: { "content-type": "text/html" } }] },
    { name: "a 200 whose body is JSON null", provider, steps: [{ status: 200, body: null }] },
    { name: "a rejected key", provider, steps: [{ status: 401, body: errorBody("bad key", "authentication_error") }] },
    {
      name: "an answer of the wrong shape, then a valid one",
      provider,
      steps: [
        { status: 200, body: answer[provider]({ findings: [{ family: "risk" }] }) },
        { status: 200, body: answer[provider](VALID_CRITIC_ANSWER) },
      ],
    },
  ]),
  {
    name: "an answer ended at the output limit, then a full one",
    provider: "openai",
    steps: [
      { status: 200, body: answer.openai({ findings: [] }, { finish_reason: "length" }) },
      { status: 200, body: answer.openai(VALID_CRITIC_ANSWER) },
    ],
  },
  {
    name: "an answer ended at max_tokens, then a full one",
    provider: "anthropic",
    steps: [
      { status: 200, body: { ...anthropicToolUse({ findings: [] }), stop_reason: "max_tokens" } },
      { status: 200, body: answer.anthropic(VALID_CRITIC_ANSWER) },
    ],
  },
];

/** The records without their timings, which are the one thing the thread may change. */
const untimed = (calls: CallRecord[]) =>
  calls.map((c) => ({ ...c, latency_ms: 0, transport_attempts: c.transport_attempts.map((a) => ({ ...a, latency_ms: 0 })) }));

/** The scenario's server, whose steps start over for each client that calls it. */
async function scenarioServer(scenario: (typeof SCENARIOS)[number]) {
  let first = 0;
  const server = await startServer((_, i) => scenario.steps[Math.min(i - first, scenario.steps.length - 1)]!);
  return { server, startOver: () => void (first = server.received.length) };
}

/** One critic request with the scenario's steps, sent on this thread or on `thread`. */
async function callThrough(scenario: (typeof SCENARIOS)[number], { server, startOver }: Awaited<ReturnType<typeof scenarioServer>>, thread?: SendThread) {
  startOver();
  const base = scenario.provider === "openai" ? `${server.url}/v1` : server.url;
  const role: RoleConfig = { provider: scenario.provider, model: "m-1", baseUrl: base, temperature: 0, maxTokens: 800, ...scenario.role };
  const clock = fakeClock();
  const client = createModelClient(
    { planner: role, critic: role, maxRetries: 2 },
    { now: clock.now, sleep: clock.sleep, random: () => 0, env: KEYS, ...(thread ? { sendThread: thread } : {}) },
  );
  const sent = server.received.length;
  const result = await client.structured(criticRequest(), CriticOutputSchema);
  const received = server.received
    .slice(sent)
    .map((r) => ({ path: r.path, raw: r.raw, authorization: r.headers.authorization, apiKey: r.headers["x-api-key"] }));
  return { result: { ...result, calls: untimed(result.calls) }, waits: clock.waits, received };
}

describe("sends made on the HTTP thread", () => {
  const thread = createSendThread(THREAD_SCRIPT);

  it.each(SCENARIOS.map((s) => [`${s.provider}: ${s.name}`, s] as const))("record what the same sends made on this thread record (%s)", async (_, scenario) => {
    const server = await scenarioServer(scenario);
    const here = await callThrough(scenario, server);
    const there = await callThrough(scenario, server, thread);
    expect(there).toEqual(here);
  });

  it("report the thread's event loop over a window, and nothing where no thread runs", async () => {
    expect(createSendThread(THREAD_SCRIPT).watchLoop()).toBeNull();
    const scenario = SCENARIOS[0]!;
    await callThrough(scenario, await scenarioServer(scenario), thread);
    const watch = thread.watchLoop()!;
    await callThrough(scenario, await scenarioServer(scenario), thread);
    // Long enough for the thread's loop to be sampled (every 10 ms).
    await new Promise((resolve) => setTimeout(resolve, 80));
    const seen = await watch.stop();
    expect(seen).toMatchObject({
      delay_p50_ms: expect.any(Number),
      delay_p99_ms: expect.any(Number),
      busy_ms: expect.any(Number),
      utilization: expect.any(Number),
    });
    expect(seen!.delay_p50_ms).toBeLessThanOrEqual(seen!.delay_max_ms);
    expect(seen).not.toHaveProperty("cpu_ms");
  });

  it("time each exchange on the thread: a call's latency is the server's time, not zero and not the client's work", async () => {
    const server = await startServer([{ status: 200, body: chatCompletion(JSON.stringify(VALID_CRITIC_ANSWER)), delayMs: 60 }]);
    const role: RoleConfig = { provider: "openai", model: "m-1", baseUrl: `${server.url}/v1` };
    const clock = fakeClock();
    // The client's own clock never moves: only the thread's timestamps can give the call a latency.
    const client = createModelClient({ planner: role, critic: role }, { now: clock.now, sleep: clock.sleep, env: {}, sendThread: thread });
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    expect(result.calls[0]!.latency_ms).toBeGreaterThanOrEqual(60);
    expect(result.calls[0]!.latency_ms).toBe(result.calls[0]!.transport_attempts[0]!.latency_ms);
  });
});

describe("a thread that dies", () => {
  it("fails the sends in flight as answers never read (not retried, of unknown cost), and the next send starts a new thread", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ft-thread-"));
    const crashed = join(dir, "crashed");
    // The real thread, which exits as it is handed its first send while `crashed` does not exist yet.
    const script = join(dir, "dies-once.mjs");
    writeFileSync(
      script,
      [
        'import { existsSync, writeFileSync } from "node:fs";',
        'import { parentPort } from "node:worker_threads";',
        `await import(${JSON.stringify(THREAD_SCRIPT.href)});`,
        `parentPort.on("message", (m) => { if (m.kind === "send" && !existsSync(${JSON.stringify(crashed)})) { writeFileSync(${JSON.stringify(crashed)}, ""); process.exit(7); } });`,
      ].join("\n"),
    );
    const server = await startServer([{ status: 200, body: chatCompletion(JSON.stringify(VALID_CRITIC_ANSWER)) }]);
    const role: RoleConfig = { provider: "openai", model: "gpt-4o-mini", baseUrl: `${server.url}/v1` };
    const client = createModelClient({ planner: role, critic: role }, { ...fakeClock(), env: KEYS, sendThread: createSendThread(pathToFileURL(script)) });

    const lost = await client.structured(criticRequest(), CriticOutputSchema);
    expect(lost.ok).toBe(false);
    if (lost.ok) return;
    expect(lost.outcome).toBe("provider_error");
    expect(lost.error).toContain("the HTTP thread stopped: it exited with code 7");
    expect(lost.calls.map((c) => [c.outcome, c.error_class, c.cost_usd, c.transport_attempts.length])).toEqual([["error", "unexpected", null, 1]]);

    const next = await client.structured(criticRequest(), CriticOutputSchema);
    expect(next.ok).toBe(true);
  });
});

describe("warming the thread", () => {
  it(`asks it to rehearse only for a first burst of ${REHEARSED_BURST} sends or more, and starts nothing without a live provider`, async () => {
    // A stand-in thread that answers a loop report with the preload it was sent.
    const script = join(mkdtempSync(join(tmpdir(), "ft-thread-")), "echo-preload.mjs");
    writeFileSync(
      script,
      [
        'import { parentPort } from "node:worker_threads";',
        "let preload = null;",
        'parentPort.on("message", (m) => { if (m.kind === "preload") preload = m; if (m.kind === "report-loop") parentPort.postMessage({ kind: "loop", loop: preload }); });',
      ].join("\n"),
    );
    const preloadFor = async (burst: number) => {
      const thread = createSendThread(pathToFileURL(script));
      thread.warm(["openai"], burst);
      return thread.watchLoop()!.stop();
    };
    expect(await preloadFor(REHEARSED_BURST - 1)).toEqual({ kind: "preload", providers: ["openai"], rehearse: false });
    expect(await preloadFor(REHEARSED_BURST)).toEqual({ kind: "preload", providers: ["openai"], rehearse: true });
    const idle = createSendThread(pathToFileURL(script));
    idle.warm([], 64);
    expect(idle.watchLoop()).toBeNull();
  });
});

describe("the process", () => {
  it("exits on its own with a warmed, idle thread, which holds it open only while an answer is awaited (here a loop report)", async () => {
    const program = [
      `import { createSendThread } from ${JSON.stringify(pathToFileURL(compiled(join(import.meta.dirname, "../../src/providers/send-thread/thread.ts"))).href)};`,
      "const thread = createSendThread();",
      "thread.warm(['openai', 'anthropic'], 64);",
      "const watch = thread.watchLoop();",
      // Once this timer is gone, nothing but the awaited report keeps the process open.
      // (Whatever it holds: a thread still loading its SDK may not have sampled its loop yet, and says null.)
      "setTimeout(async () => { await watch.stop(); process.stdout.write('answered'); }, 100);",
    ].join("\n");
    const r = await execa(process.execPath, ["--input-type=module", "-e", program], { reject: false, timeout: 30_000 });
    expect(r.timedOut).toBe(false);
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, "answered", ""]);
  });
});
