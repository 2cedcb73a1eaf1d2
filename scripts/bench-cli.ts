// CLI start-up and `check` benchmark (issue 16). Prints numbers; asserts nothing about time in a
// test. Run from the build:  npm run build && node dist/scripts/bench-cli.js
//
// Each case is a fresh `node` process, run REPS times; the table shows the median wall time (as a
// ratio to `node -e 0` measured in the same run, so a loaded machine inflates both), the median
// CPU time (user + system) and the peak RSS. The 30,000-task figure is also given net of the
// start-up, i.e. minus the 30-task check (same modules loaded, same process set-up).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../harness/package.ts";
import { BENCH_GOAL, chain } from "./bench-plans.ts";

const REPS = 7;
const BIN = join(PACKAGE_ROOT, "bin", "fieldtest.js");
const USAGE = join(PACKAGE_ROOT, "dist", "scripts", "bench-usage.js");

const dir = mkdtempSync(join(tmpdir(), "ft-bench-cli-"));
const write = (name: string, value: unknown) => {
  writeFileSync(join(dir, name), JSON.stringify(value, null, 2));
  return join(dir, name);
};
const goal = write("goal.json", BENCH_GOAL);
const small = write("plan-30.json", chain(30));
const large = write("plan-30000.json", chain(30_000));

interface Sample {
  wallMs: number;
  cpuMs: number;
  maxRssMb: number;
}

function once(args: string[], expectStatus: number): Sample {
  const usageFile = join(dir, "usage.json");
  const started = performance.now();
  const r = spawnSync(process.execPath, ["--import", USAGE, ...args], { env: { ...process.env, FT_USAGE_FILE: usageFile }, encoding: "utf8" });
  const wallMs = performance.now() - started;
  if (r.status !== expectStatus) throw new Error(`${args.join(" ")}: exit ${r.status}\n${r.stderr}`);
  return { wallMs, ...(JSON.parse(readFileSync(usageFile, "utf8")) as Omit<Sample, "wallMs">) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const CASES = [
  { name: "node -e 0", args: ["-e", "0"] },
  { name: "fieldtest --version", args: [BIN, "--version"] },
  { name: "fieldtest check, 30 tasks", args: [BIN, "check", "--goal", goal, "--plan", small] },
  { name: "fieldtest check, 30,000 tasks", args: [BIN, "check", "--goal", goal, "--plan", large] },
] as const;

// Interleaved repetitions, so a burst of load elsewhere hits every case alike.
const samples = CASES.map(() => [] as Sample[]);
for (let rep = 0; rep < REPS; rep++) CASES.forEach((c, i) => samples[i]!.push(once([...c.args], 0)));
const result = CASES.map((c, i) => ({
  name: c.name,
  wallMs: median(samples[i]!.map((s) => s.wallMs)),
  cpuMs: median(samples[i]!.map((s) => s.cpuMs)),
  maxRssMb: Math.max(...samples[i]!.map((s) => s.maxRssMb)),
}));
const [floor, version, check, big] = result as [(typeof result)[0], (typeof result)[0], (typeof result)[0], (typeof result)[0]];

console.log(
  `bench-cli: ${REPS} runs per case, medians; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}; 30,000-task plan ${(statSync(large).size / 1e6).toFixed(1)} MB`,
);
console.log("case                             wall ms   x node -e 0   CPU ms   peak RSS MB");
for (const r of result) {
  console.log(
    `${r.name.padEnd(31)} ${r.wallMs.toFixed(0).padStart(8)}   ${(r.wallMs / floor.wallMs).toFixed(2).padStart(10)}x ${r.cpuMs.toFixed(0).padStart(8)}   ${r.maxRssMb.toFixed(0).padStart(11)}`,
  );
}
const net = big.wallMs - check.wallMs;
const verdicts = [
  [`fieldtest --version ${version.wallMs.toFixed(0)} ms wall`, version.wallMs < 300, "< 300 ms"],
  [`check on 30 tasks ${check.wallMs.toFixed(0)} ms wall`, check.wallMs < 300, "< 300 ms"],
  [
    `check on 30,000 tasks ${net.toFixed(0)} ms net of start-up (${(net / floor.wallMs).toFixed(1)}x node -e 0), CPU ${(big.cpuMs - check.cpuMs).toFixed(0)} ms net`,
    net < 1000,
    "< 1000 ms",
  ],
  [`check on 30,000 tasks peak RSS ${big.maxRssMb.toFixed(0)} MB`, big.maxRssMb < 300, "< 300 MB"],
] as const;
for (const [text, ok, target] of verdicts) console.log(`  ${ok ? "ok  " : "OVER"} ${text} (target ${target})`);
if (verdicts.some(([, ok]) => !ok)) process.exitCode = 1;
