// Sweep-runner benchmark (issue 6). Prints numbers; asserts nothing about time.
//
//   node dist/scripts/bench-sweep.js            both parts
//   node dist/scripts/bench-sweep.js scaling    fixed sim latency L at concurrency 1, 8, 32
//   node dist/scripts/bench-sweep.js full       zero-latency full corpus + boundary × 5 trials
//
// Scaling: every sim call sleeps L ms, so an ideal scheduler takes calls × L / C. The sweep is
// sized per C (trials = C) so each case takes about the same ideal time; the ratio wall / ideal
// should be within 1.00-1.10. "wall" is the trial window (first trial start to last trial end);
// the fixed costs around it (corpus load, canaries, manifest) do not depend on C and are printed
// apart. Full: wall time and peak RSS of the default sweep's machinery, reports left out.
import { createWriteStream, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { loadCorpus } from "../harness/corpus/load.ts";
import { readTrialLog } from "../harness/run/store.ts";
import { RunCliSchema } from "../harness/run/settings.ts";
import { runSweep, type SweepHost } from "../harness/run/sweep.ts";
import { realEngine, realHost } from "../harness/run/wiring.ts";
import type { TrialRecord } from "../src/formats/records.ts";
import { DEFAULT_SIM_PROFILE } from "../src/providers/sim/profile.ts";

const LATENCY_MS = 250;
const SCALING_GOALS = 16;

const root = mkdtempSync(join(tmpdir(), "ft-bench-"));
const quiet = createWriteStream("/dev/null") as unknown as NodeJS.WriteStream;
const host: SweepHost = { ...realHost(["run"]), stdout: quiet, stderr: quiet, env: { CI: "1" } };

/** The trial window: first trial start to last trial end, from the records. */
const windowOf = (r: TrialRecord) => ({ suite: r.suite, item_id: r.item_id, trial: r.trial, start: Date.parse(r.started_at), end: Date.parse(r.finished_at), attempts: r.calls.reduce((n, c) => n + c.transport_attempts.length, 0) });

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
  writeFileSync(profile, stringify({ ...DEFAULT_SIM_PROFILE, name: "bench-fixed", planner: { ...DEFAULT_SIM_PROFILE.planner, latency_ms: LATENCY_MS }, critic: { ...DEFAULT_SIM_PROFILE.critic, latency_ms: LATENCY_MS } }));
  const only = loadCorpus("corpus").goals.slice(0, SCALING_GOALS).map((g) => g.goal.id).join(",");
  console.log(`scaling: sim latency L = ${LATENCY_MS} ms per call, ${SCALING_GOALS} goals, trials = C`);
  console.log("   C  trials  calls   ideal (calls×L/C)   trial window   ratio   (whole command)");
  for (const c of [1, 8, 32]) {
    const r = await sweep(`scaling-${c}`, { only, suite: "corpus", trials: String(c), concurrency: String(c), simProfile: profile });
    const ideal = (r.attempts * LATENCY_MS) / c;
    console.log(`${String(c).padStart(4)}  ${String(r.trials).padStart(6)}  ${String(r.attempts).padStart(5)}   ${(ideal / 1000).toFixed(2).padStart(8)} s          ${(r.windowMs / 1000).toFixed(2).padStart(6)} s  ${(r.windowMs / ideal).toFixed(3)}   (${(r.wallMs / 1000).toFixed(2)} s)`);
  }
}

async function full(): Promise<void> {
  const corpus = loadCorpus("corpus");
  const r = await sweep("full", {});
  const rssMb = process.resourceUsage().maxRSS / 1024;
  console.log(`full: ${corpus.goals.length} goals + ${corpus.fixtures.length} fixtures × 5 trials = ${r.trials} trials, ${r.attempts} calls, zero latency`);
  console.log(`  wall ${(r.wallMs / 1000).toFixed(2)} s (target < 20 s), peak RSS ${rssMb.toFixed(0)} MB (target < 400 MB), ${(r.trials / (r.wallMs / 1000)).toFixed(0)} trials/s`);
}

const which = process.argv[2];
if (which === undefined || which === "scaling") await scaling();
if (which === undefined || which === "full") await full();
console.log(`run folders under ${root}`);
