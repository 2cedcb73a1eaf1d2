// Sweep-runner benchmark (issue 6). Prints numbers; asserts nothing about time.
//
//   node dist/scripts/bench-sweep.js            both parts
//   node dist/scripts/bench-sweep.js scaling    fixed sim latency L at concurrency 1, 8, 32
//   node dist/scripts/bench-sweep.js full       zero-latency full corpus + boundary × 5 trials
//   node dist/scripts/bench-sweep.js live [N]   the CLI against an upstream-shaped server, C = 8, 32, 64 (N rounds, default 1)
//   node dist/scripts/bench-sweep.js paired DIR [PAIRS] [C]   live sweeps of this build and the one in DIR, alternated (default 6 pairs, C = 64)
//   node dist/scripts/bench-sweep.js transport-floor URL C CALLS   (live runs it) the adapter alone, CPU ms as JSON
//
// Scaling: every sim call sleeps L ms, so an ideal scheduler takes calls × L / C. The sweep is
// sized per C (trials = C) so each case takes about the same ideal time; the ratio wall / ideal
// should be within 1.00-1.10. "wall" is the trial window (first trial start to last trial end);
// the fixed costs around it (corpus load, canaries, manifest) do not depend on C and are printed
// apart. Full: wall time and peak RSS of the default sweep's machinery, reports left out.
//
// Live: `fieldtest run --provider openai` (the compiled CLI in its own process, real SDK, real
// HTTP) against test/providers/upstream-server.ts in another process, which answers each call
// after a log-normal delay around 110 ms (planner) or 48 ms (critic) and reports that delay in the
// answer. The full default sweep (corpus + boundary × 5 trials) at C = 8, 32, 64. "ideal" is the
// same trials, each lasting the sum of its calls' server delays, list-scheduled in the sweep's
// dispatch order on C slots: the window a harness that cost nothing would take. "overhead per
// call" is recorded latency_ms minus the server's delay (targets: window / ideal <= 1.05,
// overhead <= 2 ms at C = 64). "busy" is the main thread's event loop active time while the trials
// ran (the manifest's operational.event_loop), per call; the sends run on the HTTP thread, whose
// loop delay (operational.http_thread_loop) is printed beside the main thread's. CPU per call: the process's CPU time (user +
// system, all threads) while the trials ran, from the same place (target < 1 ms), and the whole
// command's (start-up, corpus and reports included). "SDK+HTTP" is the floor under it, measured
// in the same run: as many calls, at the same C, against the same server, sent by the OpenAI
// adapter (real SDK, the harness's fetch) in a fresh process with nothing else (no engine, no
// records), each a corpus goal's decompose prompt in turn; "rest" is the harness's CPU per call
// less that floor; "server" is the stand-in upstream's own CPU per call over the same command (it
// shares the machine's cores with the harness). With N rounds, each round runs the three C in
// turn (so the shared host's moods fall on all of them) and a last table gives min / median / max
// per C and how many runs met the targets: on a shared 2-core host one run proves little.
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { stringify } from "yaml";
import { loadCorpus } from "../harness/corpus/load.ts";
import { readTrialLog } from "../harness/run/store.ts";
import { RunCliSchema } from "../harness/run/settings.ts";
import { runSweep, type SweepHost } from "../harness/run/sweep.ts";
import { realHost } from "../harness/cli/host.ts";
import { realEngine } from "../harness/assembly.ts";
import type { TrialRecord } from "../src/formats/records.ts";
import { DEFAULT_SIM_PROFILE } from "../src/sim/profile.ts";
import { PACKAGE_ROOT } from "../harness/package.ts";
import { readManifest } from "../harness/run/manifest.ts";
import { upstreamDelayMs } from "../test/providers/upstream-server.ts";
import { canonicalJson } from "../src/canonical.ts";
import { mcnemarExact, pairedDelta } from "../src/stats/paired.ts";
import { plannerRequest } from "../src/planner/planner.ts";
import { RoleConfigSchema } from "../src/providers/config.ts";
import { createLiveAdapter } from "../src/providers/adapters.ts";
import type { ModelClient } from "../src/providers/types.ts";

const LATENCY_MS = 250;
const SCALING_GOALS = 16;

const which = process.argv[2];
// The transport-floor mode writes no run folders.
const root = which === "transport-floor" ? "" : mkdtempSync(join(tmpdir(), "ft-bench-"));
const quiet = createWriteStream("/dev/null") as unknown as NodeJS.WriteStream;
const host: SweepHost = { ...realHost(["run"]), stdout: quiet, stderr: quiet, env: { CI: "1" } };

/** The trial window: first trial start to last trial end, from the records. */
const windowOf = (r: TrialRecord) => ({
  suite: r.suite,
  item_id: r.item_id,
  trial: r.trial,
  start: Date.parse(r.started_at),
  end: Date.parse(r.finished_at),
  attempts: r.calls.reduce((n, c) => n + c.transport_attempts.length, 0),
});

async function sweep(name: string, raw: Record<string, unknown>): Promise<{ dir: string; wallMs: number; windowMs: number; attempts: number; trials: number }> {
  const dir = join(root, name);
  const started = performance.now();
  const code = await runSweep(RunCliSchema.parse({ ...raw, out: dir }), {}, { ...realEngine(process.env), writeReport: undefined }, host);
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`${name}: exit ${code}`);
  const records = readTrialLog(dir, windowOf).records;
  const windowMs = Math.max(...records.map((r) => r.end)) - Math.min(...records.map((r) => r.start));
  return { dir, wallMs, windowMs, attempts: records.reduce((n, r) => n + r.attempts, 0), trials: records.length };
}

async function scaling(): Promise<void> {
  const profile = join(root, "fixed-latency.yaml");
  writeFileSync(
    profile,
    stringify({
      ...DEFAULT_SIM_PROFILE,
      name: "bench-fixed",
      planner: { ...DEFAULT_SIM_PROFILE.planner, latency_ms: LATENCY_MS },
      critic: { ...DEFAULT_SIM_PROFILE.critic, latency_ms: LATENCY_MS },
    }),
  );
  const only = loadCorpus("corpus")
    .goals.slice(0, SCALING_GOALS)
    .map((g) => g.goal.id)
    .join(",");
  console.log(`scaling: sim latency L = ${LATENCY_MS} ms per call, ${SCALING_GOALS} goals, trials = C`);
  console.log("   C  trials  calls   ideal (calls×L/C)   trial window   ratio   (whole command)");
  for (const c of [1, 8, 32]) {
    const r = await sweep(`scaling-${c}`, { only, suite: "corpus", trials: String(c), concurrency: String(c), simProfile: profile });
    const ideal = (r.attempts * LATENCY_MS) / c;
    console.log(
      `${String(c).padStart(4)}  ${String(r.trials).padStart(6)}  ${String(r.attempts).padStart(5)}   ${(ideal / 1000).toFixed(2).padStart(8)} s          ${(r.windowMs / 1000).toFixed(2).padStart(6)} s  ${(r.windowMs / ideal).toFixed(3)}   (${(r.wallMs / 1000).toFixed(2)} s)`,
    );
  }
}

async function full(): Promise<void> {
  const corpus = loadCorpus("corpus");
  const r = await sweep("full", {});
  const rssMb = process.resourceUsage().maxRSS / 1024;
  console.log(`full: ${corpus.goals.length} goals + ${corpus.fixtures.length} fixtures × 5 trials = ${r.trials} trials, ${r.attempts} calls, zero latency`);
  console.log(
    `  wall ${(r.wallMs / 1000).toFixed(2)} s (target < 20 s), peak RSS ${rssMb.toFixed(0)} MB (target < 400 MB), ${(r.trials / (r.wallMs / 1000)).toFixed(0)} trials/s`,
  );
}

/** The window C slots take for these durations, each trial starting on the first free slot in the given order. */
function listSchedule(durations: readonly number[], c: number): number {
  const free = Array.from({ length: c }, () => 0);
  for (const d of durations) {
    let slot = 0;
    for (let i = 1; i < c; i++) if (free[i]! < free[slot]!) slot = i;
    free[slot]! += d;
  }
  return Math.max(...free);
}

/** CPU ms another process has used so far (Linux /proc); null where that cannot be read. */
let clockTicks: number | undefined;
function processCpuMs(pid: number | undefined): number | null {
  try {
    clockTicks ??= Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout?.trim()) || 100;
    // Fields after the command name's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return null;
  }
}

interface Upstream {
  url: string;
  pid: number | undefined;
  stop(): void;
}

async function startUpstream(): Promise<Upstream> {
  const child = spawn(process.execPath, [join(PACKAGE_ROOT, "dist/test/providers/upstream-server.js")], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once("line", (line) => (line.startsWith("listening ") ? resolve(line.slice("listening ".length)) : reject(new Error(line))));
    child.once("exit", (code) => reject(new Error(`upstream server exited ${code}`)));
  });
  return { url, pid: child.pid, stop: () => child.stdin!.end() };
}

const percentile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

/** One live sweep's figures. */
interface LiveCase {
  trials: number;
  calls: number;
  idealMs: number;
  windowMs: number;
  ratio: number;
  /** Recorded latency less the server's delay, per call: mean, p50, p95. */
  overheadMs: number;
  overheadP50Ms: number;
  overheadP95Ms: number;
  /** The process's CPU per call while the trials ran, and over the whole command. */
  cpuMs: number;
  commandCpuMs: number;
  busyMs: number;
  loopP99Ms: number;
  threadLoopP99Ms: number | null;
  /** The stand-in upstream's CPU per call over the command; null where /proc cannot be read. */
  serverCpuMs: number | null;
}

/** Targets (issue 16): window / ideal <= 1.05 at every C, overhead <= 2 ms per call at C = 64. */
const meetsTargets = (c: number, x: LiveCase) => x.ratio <= 1.05 && (c !== 64 || x.overheadMs <= 2);

/** `fieldtest run --provider openai` of the package at `packageRoot` against the upstream, at concurrency c, measured. */
function liveCase(packageRoot: string, upstream: Upstream, c: number, name: string): LiveCase {
  const dir = join(root, name);
  const usageFile = join(root, `${name}.usage.json`);
  const args = [
    "--import",
    join(PACKAGE_ROOT, "dist/scripts/bench-usage.js"),
    join(packageRoot, "bin/fieldtest.js"),
    "run",
    "--provider",
    "openai",
    "--model",
    "gpt-4o-mini",
    "--base-url",
    upstream.url,
    "--concurrency",
    String(c),
    "--out",
    dir,
  ];
  const serverBefore = processCpuMs(upstream.pid);
  const r = spawnSync(process.execPath, args, { env: { ...process.env, CI: "1", FT_USAGE_FILE: usageFile }, encoding: "utf8" });
  const serverAfter = processCpuMs(upstream.pid);
  if (r.status !== 0) throw new Error(`${name}: exit ${r.status}\n${r.stderr}`);
  const trials = readTrialLog(dir, (t) => ({
    suite: t.suite,
    item_id: t.item_id,
    trial: t.trial,
    start: Date.parse(t.started_at),
    end: Date.parse(t.finished_at),
    calls: t.calls.map((call) => ({ latency: call.latency_ms, delay: upstreamDelayMs(call.reported.system_fingerprint) })),
  })).records;
  // The dispatch order is the plan's, which is the order trials start in.
  trials.sort((a, b) => a.start - b.start);
  const calls = trials.flatMap((t) => t.calls);
  if (calls.some((call) => call.delay === null)) throw new Error(`${name}: a call without the server's delay`);
  const idealMs = listSchedule(
    trials.map((t) => t.calls.reduce((ms, call) => ms + call.delay!, 0)),
    c,
  );
  const windowMs = Math.max(...trials.map((t) => t.end)) - Math.min(...trials.map((t) => t.start));
  const overhead = calls.map((call) => call.latency - call.delay!);
  const usage = JSON.parse(readFileSync(usageFile, "utf8")) as { cpuMs: number };
  const { event_loop: loop, http_thread_loop: thread } = readManifest(dir).operational;
  if (!loop) throw new Error(`${name}: the manifest has no event-loop figures`);
  return {
    trials: trials.length,
    calls: calls.length,
    idealMs,
    windowMs,
    ratio: windowMs / idealMs,
    overheadMs: overhead.reduce((a, b) => a + b, 0) / overhead.length,
    overheadP50Ms: percentile(overhead, 0.5),
    overheadP95Ms: percentile(overhead, 0.95),
    cpuMs: loop.cpu_ms / calls.length,
    commandCpuMs: usage.cpuMs / calls.length,
    busyMs: loop.busy_ms / calls.length,
    loopP99Ms: loop.delay_p99_ms,
    threadLoopP99Ms: thread?.delay_p99_ms ?? null,
    // The stand-in upstream shares the 2 cores with the harness: what it spent per call is part of the picture.
    serverCpuMs: serverBefore === null || serverAfter === null ? null : (serverAfter - serverBefore) / calls.length,
  };
}

async function live(rounds: number): Promise<void> {
  const upstream = await startUpstream();
  const seen = new Map<number, LiveCase[]>();
  console.log(
    `live: fieldtest run --provider openai against the upstream-shaped server (planner ~110 ms, critic ~48 ms); load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(
    "   C  trials  calls   ideal    window  ratio   overhead/call ms (mean p50 p95)   loop p99 ms (main, HTTP thread)  busy ms/call  CPU ms/call (trials, command, SDK+HTTP, rest, server)  load",
  );
  try {
    // Rounds alternate the concurrencies, so a change in the shared host's state spreads over all of them.
    for (let round = 0; round < rounds; round++)
      for (const c of [8, 32, 64]) {
        const x = liveCase(PACKAGE_ROOT, upstream, c, `live-${c}-${round}`);
        const floor = transportFloorCpuMs(upstream.url, c, x.calls) / x.calls;
        seen.set(c, [...(seen.get(c) ?? []), x]);
        console.log(
          `${String(c).padStart(4)}  ${String(x.trials).padStart(6)}  ${String(x.calls).padStart(5)}  ${(x.idealMs / 1000).toFixed(2).padStart(6)} s  ${(x.windowMs / 1000).toFixed(2).padStart(6)} s  ${x.ratio.toFixed(3)}   ${x.overheadMs.toFixed(2).padStart(6)} ${x.overheadP50Ms.toFixed(2).padStart(6)} ${x.overheadP95Ms.toFixed(2).padStart(6)}              ${x.loopP99Ms.toFixed(1).padStart(6)} ${(x.threadLoopP99Ms?.toFixed(1) ?? "n/a").padStart(6)}           ${x.busyMs.toFixed(2).padStart(6)}       ${x.cpuMs.toFixed(2).padStart(6)} ${x.commandCpuMs.toFixed(2).padStart(6)} ${floor.toFixed(2).padStart(6)} ${(x.cpuMs - floor).toFixed(2).padStart(6)} ${(x.serverCpuMs?.toFixed(2) ?? "n/a").padStart(6)}        ${loadavg()[0]!.toFixed(2)}`,
        );
      }
    if (rounds > 1) {
      console.log(`over ${rounds} rounds (min / median / max):`);
      const spread = (xs: number[], digits: number) => [Math.min(...xs), percentile(xs, 0.5), Math.max(...xs)].map((x) => x.toFixed(digits)).join(" / ");
      for (const [c, cases] of seen) {
        const met = cases.filter((x) => meetsTargets(c, x)).length;
        console.log(
          `  C = ${String(c).padStart(2)}: ratio ${spread(
            cases.map((x) => x.ratio),
            3,
          )}; overhead ${spread(
            cases.map((x) => x.overheadMs),
            2,
          )} ms; CPU ${spread(
            cases.map((x) => x.cpuMs),
            2,
          )} ms/call; targets met in ${met}/${cases.length}`,
        );
      }
    }
  } finally {
    upstream.stop();
  }
}

/**
 * The `paired` mode: this package against another build of fieldtest (a folder with its own
 * bin/ and dist/, such as a git worktree of the commit to compare with, after `npm ci` or
 * `npm run build` there), in pairs of live sweeps at one concurrency, against one upstream. The
 * host's speed drifts from minute to minute, so a comparison of runs made apart says little:
 * within a pair the two run back to back, in alternating order (this one first in even pairs),
 * and each figure is compared as a paired difference, with its 95% interval over the pairs and
 * an exact sign test of how many pairs this build was better in.
 */
async function paired(otherRoot: string, pairs: number, c: number): Promise<void> {
  const other = resolve(otherRoot);
  if (!existsSync(join(other, "bin/fieldtest.js")) || !existsSync(join(other, "dist/bundle/main.js"))) {
    throw new Error(`${other}: not a built fieldtest (no bin/fieldtest.js or dist/bundle/main.js): run \`npm ci\` there`);
  }
  const upstream = await startUpstream();
  const builds = [
    { name: "this", root: PACKAGE_ROOT },
    { name: "other", root: other },
  ];
  const figures: { name: string; of: (x: LiveCase) => number; digits: number }[] = [
    { name: "window / ideal", of: (x) => x.ratio, digits: 3 },
    { name: "overhead ms/call", of: (x) => x.overheadMs, digits: 2 },
    { name: "overhead p95 ms", of: (x) => x.overheadP95Ms, digits: 2 },
    { name: "CPU ms/call", of: (x) => x.cpuMs, digits: 2 },
  ];
  console.log(
    `paired: this build (${PACKAGE_ROOT}) against ${other}, ${pairs} pairs at C = ${c}, lower is better; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(`  pair  first   ${figures.map((f) => `${f.name} (this, other)`).join("   ")}`);
  const cases: Record<string, LiveCase[]> = { this: [], other: [] };
  try {
    for (let pair = 0; pair < pairs; pair++) {
      const order = pair % 2 === 0 ? builds : [...builds].reverse();
      for (const b of order) cases[b.name]!.push(liveCase(b.root, upstream, c, `paired-${pair}-${b.name}`));
      const [mine, theirs] = [cases.this![pair]!, cases.other![pair]!];
      console.log(
        `  ${String(pair + 1).padStart(4)}  ${order[0]!.name.padEnd(5)}   ${figures.map((f) => `${f.of(mine).toFixed(f.digits)}, ${f.of(theirs).toFixed(f.digits)}`.padEnd(f.name.length + 15)).join("   ")}`,
      );
    }
    console.log(`this - other over ${pairs} pairs (mean, 95% interval; pairs where this build is lower / higher; exact sign test):`);
    for (const f of figures) {
      const mine = cases.this!.map(f.of);
      const theirs = cases.other!.map(f.of);
      const delta = pairedDelta(mine, theirs);
      const lower = mine.filter((v, i) => v < theirs[i]!).length;
      const higher = mine.filter((v, i) => v > theirs[i]!).length;
      const interval =
        delta === null || delta.low === null || delta.high === null ? "n/a" : `[${delta.low.toFixed(f.digits + 1)}, ${delta.high.toFixed(f.digits + 1)}]`;
      console.log(
        `  ${f.name.padEnd(18)} ${(delta?.mean.toFixed(f.digits + 1) ?? "n/a").padStart(8)}  ${interval.padEnd(22)} lower in ${lower}/${pairs}, higher in ${higher}/${pairs}, p = ${mcnemarExact(lower, higher).toFixed(3)}`,
      );
    }
  } finally {
    upstream.stop();
  }
}

/** The transport floor of `calls` sends at concurrency c, in a fresh process (this script's `transport-floor` mode): its CPU ms. */
function transportFloorCpuMs(url: string, c: number, calls: number): number {
  const r = spawnSync(process.execPath, [join(PACKAGE_ROOT, "dist/scripts/bench-sweep.js"), "transport-floor", url, String(c), String(calls)], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`transport floor C=${c}: exit ${r.status}\n${r.stderr}`);
  return (JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { cpuMs: number }).cpuMs;
}

/** The `transport-floor` mode: sends through the OpenAI adapter alone and prints the CPU time of the sends as JSON. */
async function transportFloor(url: string, c: number, calls: number): Promise<void> {
  const role = RoleConfigSchema.parse({ provider: "openai", model: "gpt-4o-mini", baseUrl: url });
  const adapter = await createLiveAdapter("openai", role, { apiKey: "sk-bench", now: () => performance.timeOrigin + performance.now() });
  const unused: ModelClient = { structured: () => Promise.reject(new Error("the floor sends through the adapter alone")) };
  const bodies = loadCorpus("corpus").goals.map(({ goal }) => {
    const request = plannerRequest(goal, "decompose", { client: unused, itemId: goal.id, trial: 0, round: 0 });
    return canonicalJson(
      adapter.render({ system: request.system, user: request.user, schemaName: request.schemaName, schema: request.schema, corrections: [] }, "json_schema"),
    );
  });
  let next = 0;
  const cpuSince = process.cpuUsage();
  const sender = async () => {
    for (let i = next++; i < calls; i = next++) {
      await adapter.send(bodies[i % bodies.length]!, { timeoutMs: 120_000, attempt: 0 });
    }
  };
  await Promise.all(Array.from({ length: c }, sender));
  const cpu = process.cpuUsage(cpuSince);
  console.log(JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000 }));
}

if (which === "transport-floor") {
  await transportFloor(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5]));
  process.exit(0);
}
if (which === undefined || which === "scaling") await scaling();
if (which === undefined || which === "full") await full();
if (which === undefined || which === "live") await live(Number(process.argv[3] ?? 1));
if (which === "paired") {
  if (!process.argv[3]) throw new Error("paired: name the other build's folder (node dist/scripts/bench-sweep.js paired DIR [PAIRS] [C])");
  await paired(process.argv[3], Number(process.argv[4] ?? 6), Number(process.argv[5] ?? 64));
}
console.log(`run folders under ${root}`);
