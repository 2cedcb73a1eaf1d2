// Error rates of diff, gate and trend over independent seeds (docs/design.md §11). A benchmark, not a
// test: it prints rates with their exact 95% intervals and asserts nothing.
//
//   node dist/scripts/bench-gate-calibration.js [--seeds N] [--work DIR] [--baseline FILE] [--policy FILE]
//
//   --seeds N      independent seeds per series (default 20): A/A runs at 100..., high-miss runs at 200...
//   --work DIR     keep the sweeps in DIR and reuse the ones already there (default: a fresh temp folder)
//   --baseline     the committed baseline (default baselines/sim-default.json)
//   --policy       the gate policy judged (default gate.sim.yaml)
//
// Each sweep is the default sim sweep (every corpus goal and boundary fixture, 5 trials) at its own
// seed, run in this process; the high-miss series swaps in the high-miss critic profile. The
// baseline's seeds must not overlap the A/A seeds, or A/A would not be independent of it.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { diffSnapshots } from "../harness/baseline/diff.ts";
import { evaluateGate, metricDelta } from "../harness/baseline/gate.ts";
import { readSnapshot } from "../harness/baseline/io.ts";
import { GatePolicySchema } from "../harness/baseline/policy.ts";
import type { Snapshot } from "../src/formats/snapshot.ts";
import { headlineFamily, trend, type TrendResult } from "../harness/baseline/trend.ts";
import { loadFile } from "../src/formats/load.ts";
import { sampleSd } from "../src/stats/mean.ts";
import { pct, simProfile, simSweeps } from "./sim-sweeps.ts";

const { values: args } = parseArgs({
  options: {
    seeds: { type: "string", default: "20" },
    work: { type: "string" },
    baseline: { type: "string", default: "baselines/sim-default.json" },
    policy: { type: "string", default: "gate.sim.yaml" },
  },
});
const N = Number(args.seeds);
const AA_SEEDS = Array.from({ length: N }, (_, i) => 100 + i);
const HM_SEEDS = Array.from({ length: N }, (_, i) => 200 + i);
const SHIFT_RUNS = 3;
const sweeps = simSweeps(args.work);
const baseline = readSnapshot(args.baseline);
const policy = loadFile(args.policy, GatePolicySchema);
const headline = headlineFamily(policy);

const overlap = baseline.runs.map((r) => r.seed).filter((s) => s !== null && (AA_SEEDS.includes(s) || HM_SEEDS.includes(s)));
if (overlap.length) throw new Error(`the baseline's seeds ${overlap.join(", ")} overlap the benchmark's: A/A would not be independent`);

const wallStart = performance.now();
const aa = await sweeps.series("aa", AA_SEEDS);
const hm = await sweeps.series("high-miss", HM_SEEDS, simProfile("high-miss"));

const judge = (s: Snapshot) => {
  const diff = diffSnapshots(baseline, s, policy.alpha);
  return { diff, gate: evaluateGate(policy, baseline, s, diff) };
};
const aaJudged = aa.map(judge);
const hmJudged = hm.map(judge);

console.log(
  `gate calibration: ${N} independent seeds per series; baseline ${args.baseline} (seeds ${baseline.runs.map((r) => r.seed).join(", ")}); policy ${args.policy}`,
);
const aaPass = aaJudged.filter((j) => j.gate.exit === 0).length;
console.log(`A/A gate pass rate (exit 0):           ${pct(aaPass, N)}   (required ≥ 0.95)`);
const aaFailed = aaJudged.flatMap((j) => j.gate.checks.filter((c) => c.outcome !== "pass").map((c) => `${c.name} ${c.outcome}`));
if (aaFailed.length)
  console.log(`  A/A checks not passing: ${[...new Set(aaFailed)].map((n) => `${n} ×${aaFailed.filter((x) => x === n).length}`).join("; ")}`);
const hmFail = hmJudged.filter((j) => j.gate.exit === 1).length;
console.log(`high-miss gate failure rate (exit 1):  ${pct(hmFail, N)}   (required ≥ 0.95)`);
const hmNames = hmJudged.flatMap((j) => j.gate.failed);
console.log(`  high-miss failed checks: ${[...new Set(hmNames)].map((n) => `${n} ×${hmNames.filter((x) => x === n).length}`).join("; ")}`);
const unexplained = aaJudged.map((j) => j.diff.unexplained.length);
const noise = aaJudged.map((j) => j.diff.counts.noise);
console.log(
  `unexplained deltas per A/A diff:        mean ${(unexplained.reduce((a, b) => a + b, 0) / N).toFixed(3)}, max ${Math.max(...unexplained)}; diffs with any: ${pct(unexplained.filter((u) => u > 0).length, N)}   (required mean ≤ 0.1)`,
);
console.log(
  `  (noise deltas per A/A diff: mean ${(noise.reduce((a, b) => a + b, 0) / N).toFixed(1)}; cause deltas: ${aaJudged.reduce((s, j) => s + j.diff.counts.cause, 0)})`,
);

const alarmsOf = (t: TrendResult, from = 0) => t.alerts.filter((a) => a.index >= from);
const stable = trend(aa, baseline, { headline });
const stableAlarms = alarmsOf(stable);
const metricRuns = stable.metrics.filter((m) => m.points.some((p) => p.shift !== null)).length * N;
console.log(
  `trend alarms on ${N} stable runs:        ${stableAlarms.length} alarm(s) on ${new Set(stableAlarms.map((a) => a.metric)).size} metric(s)${stableAlarms.length ? ` (${stableAlarms.map((a) => `${a.metric} ${a.chart} run ${a.index + 1}`).join("; ")})` : ""}; per charted metric-run ${pct(stableAlarms.length, metricRuns)}   (required ≤ 1 in all)`,
);
const shifted = trend([...aa, ...hm.slice(0, SHIFT_RUNS)], baseline, { headline });
const firstShiftAlarm = alarmsOf(shifted, N).reduce((m, a) => Math.min(m, a.index - N + 1), Infinity);
const shiftMetrics = [...new Set(alarmsOf(shifted, N).map((a) => a.metric))];
console.log(
  `${SHIFT_RUNS}-run high-miss shift after the ${N} stable runs: first alarm at shift run ${Number.isFinite(firstShiftAlarm) ? firstShiftAlarm : "none"} of ${SHIFT_RUNS} (required ≤ 3); alarming: ${shiftMetrics.join(", ") || "none"}`,
);
const cold = trend(hm.slice(0, SHIFT_RUNS), baseline, { headline });
const coldFirst = cold.alerts.reduce((m, a) => Math.min(m, a.index + 1), Infinity);
console.log(`  the same shift right after the baseline (no history): first alarm at run ${Number.isFinite(coldFirst) ? coldFirst : "none"} of ${SHIFT_RUNS}`);
console.log(`  charts: ${stable.caveat}`);

console.log("A/A noise floor of the gated metrics (paired Δ against the baseline, clustered by fixture group):");
for (const m of policy.non_inferiority) {
  const sign = m.direction === "lower_is_better" ? 1 : -1;
  const deltas = aa.map((s) => metricDelta(m.metric, baseline, s, sign));
  const means = deltas.map((d) => d?.mean ?? NaN);
  const ses = deltas.map((d) => d?.se ?? NaN);
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const sdMeans = sampleSd(means);
  const hmDelta = avg(hm.map((s) => metricDelta(m.metric, baseline, s, sign)?.mean ?? NaN));
  console.log(
    `  ${m.metric.padEnd(34)} margin ${String(m.margin).padEnd(5)} A/A Δ mean ${avg(means).toFixed(4)}, SD over seeds ${sdMeans.toFixed(4)}, mean SE ${avg(ses).toFixed(4)} (margin/SE ${(m.margin / avg(ses)).toFixed(1)}); high-miss Δ ${hmDelta.toFixed(4)}`,
  );
}
const cpu = process.cpuUsage();
console.log(
  `${aa.length + hm.length} sweeps under ${sweeps.work} in ${((performance.now() - wallStart) / 1000).toFixed(0)} s of wall time, ${((cpu.user + cpu.system) / 60e6).toFixed(1)} CPU-minutes (this process), load average ${loadavg()[0]!.toFixed(1)} at the end`,
);
