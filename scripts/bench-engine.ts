// External-engine benchmark (issue 31). Prints numbers; asserts nothing about time.
//
//   node dist/scripts/bench-engine.js            both parts
//   node dist/scripts/bench-engine.js proxy      the recording proxy's added latency per call
//   node dist/scripts/bench-engine.js protocols  sweep wall / ideal, command vs worker protocol
//   node dist/scripts/bench-engine.js caller URL TOKEN C N   (proxy runs it) C callers, N calls each; latencies as JSON
//
// Proxy: 16 concurrent callers (as 16 engines would, in a process of their own) each send chat
// completions to the upstream stand-in (test/providers/upstream-server.ts, in its own process, a
// fixed 20 ms answer), directly and through the recording proxy in this process (which forwards
// through fieldtest's model client: its send thread, retries, accounting). The added latency is
// the proxied calls' latency as the callers saw it less the direct ones', at p50 and p95
// (target: at most 1 ms at C = 16). Direct and proxied batches alternate four times, so the
// shared host's moods fall on both.
//
// Protocols: `fieldtest run --engine` with the stand-in engine (test/tools/stand-in-engine.mjs)
// made to take 1 s to start, at C = 8, on 8 corpus goals × 3 trials: one process per trial
// (command) against one per slot (worker). "ideal" is the trials' calls alone, each trial lasting
// the sum of its calls' latencies, list-scheduled on C slots: the window an engine that started
// for free would take.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { realHost } from "../harness/cli/host.ts";
import { startRecordingProxy } from "../harness/engine/proxy.ts";
import { PACKAGE_ROOT } from "../harness/package.ts";
import { RunCliSchema } from "../harness/run/settings.ts";
import { readTrialLog } from "../harness/run/store.ts";
import { runSweep } from "../harness/run/sweep.ts";
import { realEngine } from "../harness/run/wiring.ts";
import type { TrialRecord } from "../src/formats/records.ts";
import { createModelClient } from "../src/providers/client.ts";
import { sharedSendThread } from "../src/providers/send-thread.ts";
import { startUpstreamServer } from "../test/providers/upstream-server.ts";

const STAND_IN = join(PACKAGE_ROOT, "test", "tools", "stand-in-engine.mjs");
const quantile = (xs: readonly number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;

/** A corpus goal's decompose prompt, as the upstream stand-in reads one. */
const PROMPT = `Goal (canonical JSON):\n${JSON.stringify({ id: "bench", domain: "bench", title: "Bench", description: "A benchmark goal", risk_tolerance: "balanced", replan_policy: "patch", constraints: { tools: [], facts: [] } })}`;

async function latencies(url: string, token: string, concurrency: number, perCaller: number): Promise<number[]> {
  const out: number[] = [];
  const caller = async () => {
    for (let i = 0; i < perCaller; i++) {
      const started = performance.now();
      const res = await fetch(`${url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ model: "bench", messages: [{ role: "user", content: PROMPT }], response_format: { type: "json_object" } }),
      });
      await res.text();
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

async function proxyOverhead(): Promise<void> {
  const C = 16;
  let url = "";
  const started = new Promise<void>((resolve) => {
    void child([join(PACKAGE_ROOT, "dist", "test", "providers", "upstream-server.js"), "--planner-ms", "20", "--critic-ms", "20", "--spread", "0"], (line) => {
      if (line.startsWith("listening ")) {
        url = line.slice("listening ".length);
        resolve();
      }
    });
  });
  await started;
  const role = { provider: "openai" as const, model: "bench", baseUrl: url };
  const sendThread = sharedSendThread();
  sendThread.warm(["openai"], C);
  const client = createModelClient({ planner: role, critic: role }, { env: {}, sendThread });
  const proxy = await startRecordingProxy({ forwarder: client, speaks: "openai", normalize: [] });
  const session = proxy.open({ trialKey: "corpus/bench/0", itemId: "bench", trial: 0 });
  const endpoint = session.roles.planner;
  const script = join(PACKAGE_ROOT, "dist", "scripts", "bench-engine.js");
  const batch = async (target: string, token: string, n: number) => JSON.parse(await child([script, "caller", target, token, String(C), String(n)])) as number[];
  // Warm both paths (SDK, sockets, JIT) before measuring.
  await batch(url, "none", 5);
  await batch(endpoint.base_url, endpoint.token, 5);
  const direct: number[] = [];
  const proxied: number[] = [];
  for (let round = 0; round < 4; round++) {
    direct.push(...(await batch(url, "none", 25)));
    proxied.push(...(await batch(endpoint.base_url, endpoint.token, 25)));
  }
  const { calls } = await session.close();
  await proxy.close();
  console.log(`proxy, C = ${C}, ${direct.length} calls each way (${calls.length} recorded), upstream answers in 20 ms:`);
  for (const q of [0.5, 0.95]) {
    const d = quantile(direct, q);
    const p = quantile(proxied, q);
    console.log(`  p${q * 100}: direct ${ms(d)}, through the proxy ${ms(p)}, added ${ms(p - d)}`);
  }
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
  const roles = Object.fromEntries(["PLANNER", "CRITIC"].flatMap((r) => [[`STANDIN_${r}_URL`, `{${r.toLowerCase()}.base_url}`], [`STANDIN_${r}_KEY`, `{${r.toLowerCase()}.token}`], [`STANDIN_${r}_MODEL`, `{${r.toLowerCase()}.model}`]]));
  const manifests = {
    command: { name: "stand-in", protocol: "command", speaks: "openai", start: { argv: [process.execPath, STAND_IN, "--goal", "{goal_file}", "--start-delay-ms", "1000"], env: roles } },
    worker: { name: "stand-in", protocol: "worker", speaks: "openai", start: { argv: [process.execPath, STAND_IN, "--protocol", "worker", "--start-delay-ms", "1000"] } },
  };
  console.log(`protocols, C = ${C}, 8 goals × 3 trials, an engine that takes 1 s to start:`);
  for (const [protocol, manifest] of Object.entries(manifests)) {
    const file = join(dir, `${protocol}.yaml`);
    writeFileSync(file, stringify(manifest));
    const out = join(dir, protocol);
    const quiet = { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream;
    const host = { ...realHost(["run"]), stdout: quiet, stderr: quiet };
    const started = performance.now();
    const cli = RunCliSchema.parse({ engine: file, provider: "openai", model: "bench", baseUrl: upstream.url, only: "db-0*,dns-0*", trials: "3", concurrency: String(C), out });
    await runSweep(cli, {}, { ...realEngine(process.env), writeReport: undefined }, host);
    const trials = readTrialLog(out).records as TrialRecord[];
    const starts = trials.map((t) => Date.parse(t.started_at));
    const ends = trials.map((t) => Date.parse(t.finished_at));
    const window = Math.max(...ends) - Math.min(...starts);
    const ideal = idealMs(trials, C);
    console.log(`  ${protocol.padEnd(7)}: ${trials.length} trials, window ${(window / 1000).toFixed(2)} s, ideal ${(ideal / 1000).toFixed(2)} s, window / ideal ${(window / ideal).toFixed(2)} (command ${((performance.now() - started) / 1000).toFixed(1)} s)`);
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
