// External-engine benchmark (issue 31). Prints numbers; asserts nothing about time.
//
//   node dist/scripts/bench-engine.js            both parts
//   node dist/scripts/bench-engine.js proxy      the recording proxy's added latency per call
//   node dist/scripts/bench-engine.js protocols  sweep wall / ideal, command vs worker protocol
//   node dist/scripts/bench-engine.js caller URL TOKEN C N   (proxy runs it) C callers, N calls each; latencies as JSON
//
// Proxy: 16 concurrent callers (as 16 engines would, in a process of their own, on node:http with
// keep-alive: fetch costs the caller so much CPU that it would measure itself) each send chat
// completions, answered after 20 ms. Two comparisons, at p50 and p95:
//   the proxy's own hop: the recording proxy (in this process) with a forwarder that sends nothing
//     and answers after 20 ms, against a bare HTTP server in this process answering after 20 ms:
//     what the proxy adds (routing, token, parsing, keying, recording, the answer): target at most 1 ms;
//   end to end: through the proxy and fieldtest's model client (its send thread, the SDK, retries,
//     accounting) to the upstream stand-in (test/providers/upstream-server.ts, in its own process),
//     against the callers sending to that upstream directly: what an engine's call costs in all.
// The four batches alternate four times, so the shared host's moods fall on all of them.
//
// Protocols: `fieldtest run --engine` with the stand-in engine (test/tools/stand-in-engine.mjs)
// made to take 1 s to start, at C = 8, on 8 corpus goals × 3 trials: one process per trial
// (command) against one per slot (worker). "ideal" is the trials' calls alone, each trial lasting
// the sum of its calls' latencies, list-scheduled on C slots: the window an engine that started
// for free would take.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { stringify } from "yaml";
import { realHost } from "../harness/cli/host.ts";
import { startRecordingProxy } from "../harness/engine/proxy.ts";
import { PACKAGE_ROOT } from "../harness/package.ts";
import { RunCliSchema } from "../harness/run/settings.ts";
import { readTrialLog } from "../harness/run/store.ts";
import { runSweep } from "../harness/run/sweep.ts";
import { realEngine } from "../harness/assembly.ts";
import type { TrialRecord } from "../src/formats/records.ts";
import { createModelClient } from "../src/providers/client.ts";
import { sharedSendThread } from "../src/providers/send-thread/thread.ts";
import type { WireForwarder } from "../src/providers/types.ts";
import { startUpstreamServer } from "../test/providers/upstream-server.ts";

const STAND_IN = join(PACKAGE_ROOT, "test", "tools", "stand-in-engine.mjs");
const quantile = (xs: readonly number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;

/** A corpus goal's decompose prompt, as the upstream stand-in reads one. */
const PROMPT = `Goal (canonical JSON):\n${JSON.stringify({ id: "bench", domain: "bench", title: "Bench", description: "A benchmark goal", risk_tolerance: "balanced", replan_policy: "patch", constraints: { tools: [], facts: [] } })}`;

/** A keep-alive agent per caller process: a call costs its socket once, as an engine's HTTP client does. */
const agent = new Agent({ keepAlive: true });

/** One POST on node:http (far less of the caller's own CPU than fetch, so the figures are the servers', not the caller's). */
function post(url: string, token: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.on("end", () => resolve());
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function latencies(url: string, token: string, concurrency: number, perCaller: number): Promise<number[]> {
  const out: number[] = [];
  const body = JSON.stringify({ model: "bench", messages: [{ role: "user", content: PROMPT }], response_format: { type: "json_object" } });
  const caller = async () => {
    for (let i = 0; i < perCaller; i++) {
      const started = performance.now();
      await post(`${url}/chat/completions`, token, body);
      out.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  return out;
}

/** A child process of this script; resolves with what it printed. */
function child(args: string[], onLine?: (line: string) => void): Promise<string> {
  const p = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  createInterface({ input: p.stdout! }).on("line", (line) => {
    out += `${line}\n`;
    onLine?.(line);
  });
  return new Promise((resolve) => p.on("close", () => resolve(out)));
}

/** A server in this process that answers every request after `ms`, as the proxy would with a forwarder that took that long. */
async function bareServer(ms: number): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () =>
      setTimeout(() => {
        const text = JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: "{}" }, finish_reason: "stop" }] });
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.end(text);
      }, ms),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close() };
}

/** p50 and p95 of `b` against `a`, and what `b` adds. */
function printAdded(label: string, a: number[], b: number[], aName: string, bName: string): void {
  for (const q of [0.5, 0.95]) {
    const x = quantile(a, q);
    const y = quantile(b, q);
    console.log(`  ${label} p${q * 100}: ${aName} ${ms(x)}, ${bName} ${ms(y)}, added ${ms(y - x)}`);
  }
}

async function proxyOverhead(): Promise<void> {
  const C = 16;
  const ANSWER_MS = 20;
  let url = "";
  const started = new Promise<void>((resolve) => {
    void child(
      [
        join(PACKAGE_ROOT, "dist", "test", "providers", "upstream-server.js"),
        "--planner-ms",
        String(ANSWER_MS),
        "--critic-ms",
        String(ANSWER_MS),
        "--spread",
        "0",
      ],
      (line) => {
        if (line.startsWith("listening ")) {
          url = line.slice("listening ".length);
          resolve();
        }
      },
    );
  });
  await started;
  const role = { provider: "openai" as const, model: "bench", baseUrl: url };
  const sendThread = sharedSendThread();
  sendThread.warm(["openai"], C);
  const client = createModelClient({ planner: role, critic: role }, { env: {}, sendThread });
  // The proxy's own work: a proxy whose forwarder sends nothing and answers after the same time
  // with a real call's result (taken once), against a bare server that does the same.
  const sample = await client.forward({
    role: "planner",
    wire: "openai",
    body: { model: "bench", messages: [{ role: "user", content: PROMPT }] },
    itemId: "bench",
    trial: 0,
    round: 0,
    attempt: 0,
    trialKey: "corpus/bench/9",
  });
  const answerLater: WireForwarder = { forward: () => new Promise((resolve) => setTimeout(() => resolve(sample), ANSWER_MS)) };
  const bare = await bareServer(ANSWER_MS);
  const hop = await startRecordingProxy({ forwarder: answerLater, speaks: "openai", normalize: [] });
  const proxy = await startRecordingProxy({ forwarder: client, speaks: "openai", normalize: [] });
  const hopSession = hop.open({ trialKey: "corpus/bench/0", itemId: "bench", trial: 0 });
  const session = proxy.open({ trialKey: "corpus/bench/1", itemId: "bench", trial: 1 });
  const script = join(PACKAGE_ROOT, "dist", "scripts", "bench-engine.js");
  const batch = async (target: string, token: string, n: number) =>
    JSON.parse(await child([script, "caller", target, token, String(C), String(n)])) as number[];
  const runs = { bare: [] as number[], hop: [] as number[], direct: [] as number[], proxied: [] as number[] };
  const targets: [keyof typeof runs, string, string][] = [
    ["bare", bare.url, "none"],
    ["hop", hopSession.roles.planner.base_url, hopSession.roles.planner.token],
    ["direct", url, "none"],
    ["proxied", session.roles.planner.base_url, session.roles.planner.token],
  ];
  // Warm every path (SDK, sockets, JIT) before measuring; then alternate, so the shared host's moods fall on all.
  for (const [, target, token] of targets) await batch(target, token, 5);
  for (let round = 0; round < 4; round++) for (const [name, target, token] of targets) runs[name].push(...(await batch(target, token, 25)));
  await hopSession.close();
  const { calls } = await session.close();
  await hop.close();
  await proxy.close();
  bare.close();
  console.log(
    `proxy, C = ${C} callers in a process of their own, ${runs.bare.length} calls each way, answers in ${ANSWER_MS} ms (load ${loadavg()[0]!.toFixed(2)}):`,
  );
  printAdded("the proxy's own hop", runs.bare, runs.hop, "a bare server", "the proxy");
  printAdded("end to end", runs.direct, runs.proxied, "direct to upstream", `through the proxy and fieldtest's client (${calls.length} recorded)`);
}

/** The window an engine that cost nothing would take: each trial its calls' latencies, list-scheduled on C slots in start order. */
function idealMs(trials: readonly TrialRecord[], concurrency: number): number {
  const slots = Array<number>(concurrency).fill(0);
  const ordered = [...trials].sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
  for (const t of ordered) {
    const i = slots.indexOf(Math.min(...slots));
    slots[i] = slots[i]! + t.calls.reduce((s, c) => s + c.latency_ms, 0);
  }
  return Math.max(...slots);
}

async function protocols(): Promise<void> {
  const C = 8;
  const upstream = await startUpstreamServer({ plannerMs: 110, criticMs: 48, spread: 0.25 });
  const dir = mkdtempSync(join(tmpdir(), "ft-bench-engine-"));
  const roles = Object.fromEntries(
    ["PLANNER", "CRITIC"].flatMap((r) => [
      [`STANDIN_${r}_URL`, `{${r.toLowerCase()}.base_url}`],
      [`STANDIN_${r}_KEY`, `{${r.toLowerCase()}.token}`],
      [`STANDIN_${r}_MODEL`, `{${r.toLowerCase()}.model}`],
    ]),
  );
  const manifests = {
    command: {
      name: "stand-in",
      protocol: "command",
      speaks: "openai",
      start: { argv: [process.execPath, STAND_IN, "--goal", "{goal_file}", "--start-delay-ms", "1000"], env: roles },
    },
    worker: {
      name: "stand-in",
      protocol: "worker",
      speaks: "openai",
      start: { argv: [process.execPath, STAND_IN, "--protocol", "worker", "--start-delay-ms", "1000"] },
    },
  };
  console.log(`protocols, C = ${C}, 8 goals × 3 trials, an engine that takes 1 s to start:`);
  for (const [protocol, manifest] of Object.entries(manifests)) {
    const file = join(dir, `${protocol}.yaml`);
    writeFileSync(file, stringify(manifest));
    const out = join(dir, protocol);
    const quiet = { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream;
    const host = { ...realHost(["run"]), stdout: quiet, stderr: quiet };
    const started = performance.now();
    const cli = RunCliSchema.parse({
      engine: file,
      provider: "openai",
      model: "bench",
      baseUrl: upstream.url,
      only: "db-0*,dns-0*",
      trials: "3",
      concurrency: String(C),
      out,
    });
    await runSweep(cli, {}, { ...realEngine(process.env), writeReport: undefined }, host);
    const trials = readTrialLog(out).records as TrialRecord[];
    const starts = trials.map((t) => Date.parse(t.started_at));
    const ends = trials.map((t) => Date.parse(t.finished_at));
    const window = Math.max(...ends) - Math.min(...starts);
    const ideal = idealMs(trials, C);
    console.log(
      `  ${protocol.padEnd(7)}: ${trials.length} trials, window ${(window / 1000).toFixed(2)} s, ideal ${(ideal / 1000).toFixed(2)} s, window / ideal ${(window / ideal).toFixed(2)} (command ${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
  await upstream.close();
}

const which = process.argv[2];
if (which === "caller") {
  const [url, token, c, n] = process.argv.slice(3);
  process.stdout.write(`${JSON.stringify(await latencies(url!, token!, Number(c), Number(n)))}\n`);
  process.exit(0);
}
if (which === undefined || which === "proxy") await proxyOverhead();
if (which === undefined || which === "protocols") await protocols();
process.exit(0);
