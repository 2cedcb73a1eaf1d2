// Error rates of the drift charts (`trend`, `research`) over independent seeds (docs/design.md §11).
// A benchmark, not a test: it prints rates with their exact 95% intervals and asserts nothing.
//
//   node dist/scripts/bench-drift.js [--histories N] [--work DIR] [--seed-offset N] [--alpha P] [--baseline FILE] [--policy FILE]
//
//   --histories N    histories per scenario (default 20)
//   --pool N         independent default sweeps in the pool the stable histories are drawn from (default 40)
//   --work DIR       keep the sweeps in DIR and reuse the ones already there (default: a fresh temp folder)
//   --seed-offset N  add N to every sweep's seed and to the histories' draws: a second, independent
//                    set of seeds (default 0; keep the seeds clear of the baseline's, 1000-1007)
//   --alpha P        the charts' false-alarm level per run, chart and family (default trend's, 0.005)
//   --baseline       the committed baseline (default baselines/sim-default.json)
//   --policy         the gate policy whose metrics are the headline family (default gate.yaml)
//
// A default sim sweep costs seconds of CPU, so the histories are drawn from pools of independent
// sweeps: default sweeps at seeds 5000 + i, high-miss sweeps at 7000 + h and double-miss sweeps at
// 8000 + h (h < histories; each plus the seed offset), all disjoint from the baseline's seeds
// (1000-1007). History h draws its runs at random from the default pool (seeded by h and the
// offset): every history is a fresh order and reference,
// but histories share runs, so their alarms are not independent of one another (as
// bench-gate-calibration's random splits). Its shifted runs are high-miss (double-miss) sweeps
// h, h + 1, h + 2 (mod histories): each sweep is the first shifted run of exactly one history, so
// the first-run rates are over independent shifted sweeps. Scenarios, each without a baseline (the
// first 3 runs are the reference) and with one (the baseline is the reference; the same 3
// in-control runs come first):
//   stable:       3 + 20 runs; false alarms on the 20 judged, counted as alarming metrics;
//   high-miss:    3 in-control runs, then 3 high-miss runs: the shifted run of the first alarm;
//   double-miss:  the same with a critic that misses twice as often as the default's.
// 5 runs in all (3 in control, 2 shifted) is a usual research report: "by shifted run 2" reads it.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { readSnapshot } from "../harness/baseline/io.ts";
import { GatePolicySchema } from "../harness/baseline/policy.ts";
import type { Snapshot } from "../src/formats/snapshot.ts";
import { DEFAULT_TREND_OPTIONS, headlineFamily, trend, type TrendResult } from "../harness/baseline/trend.ts";
import { loadFile } from "../src/formats/load.ts";
import { sdOf, statsOf } from "../src/stats/drift.ts";
import { createRng } from "../src/stats/random.ts";
import { countTestPower, detectableShifts } from "../src/stats/detectable.ts";
import { pct, range, simProfile, simSweeps } from "./sim-sweeps.ts";

const { values: args } = parseArgs({
  options: {
    histories: { type: "string", default: "20" },
    pool: { type: "string", default: "40" },
    work: { type: "string" },
    "seed-offset": { type: "string", default: "0" },
    alpha: { type: "string", default: String(DEFAULT_TREND_OPTIONS.alpha) },
    baseline: { type: "string", default: "baselines/sim-default.json" },
    policy: { type: "string", default: "gate.yaml" },
  },
});
const H = Number(args.histories);
const IN_CONTROL = 3;
const STABLE = 20;
const SHIFTED = 3;
const sweeps = simSweeps(args.work);
const baseline = readSnapshot(args.baseline);
const headline = headlineFamily(loadFile(args.policy, GatePolicySchema));
const POOL = Number(args.pool);
const OFFSET = Number(args["seed-offset"]);
const options = { headline, alpha: Number(args.alpha) };

const wallStart = performance.now();
const pool = await sweeps.series("stable", range(5000 + OFFSET, POOL));
const highMiss = await sweeps.series("high-miss", range(7000 + OFFSET, H), simProfile("high-miss"));
const doubleMiss = await sweeps.series("double-miss", range(8000 + OFFSET, H), simProfile("double-miss"));
const histories = Array.from({ length: H }, (_, h) => {
  // The first set's draws are seeded by h alone, as they were before the offset existed.
  const rng = OFFSET === 0 ? createRng(h, "bench-drift") : createRng(h, OFFSET, "bench-drift");
  const order = pool
    .map((run) => ({ run, key: rng() }))
    .sort((a, b) => a.key - b.key)
    .map((x) => x.run);
  const shifted = (runs: Snapshot[]) => range(0, SHIFTED).map((i) => runs[(h + i) % H]!);
  return { stable: order.slice(0, IN_CONTROL + STABLE), highMiss: shifted(highMiss), doubleMiss: shifted(doubleMiss) };
});

const alarming = (t: TrendResult, from: number, family?: "headline") =>
  new Set(t.alerts.filter((a) => a.index >= from && (family === undefined || a.family === family)).map((a) => a.metric));
/** The shifted run (1-based) of the first alarm among the runs from `from` on, or null. */
const firstAlarm = (t: TrendResult, from: number, family?: "headline") => {
  const at = t.alerts.filter((a) => a.index >= from && (family === undefined || a.family === family)).map((a) => a.index - from + 1);
  return at.length ? Math.min(...at) : null;
};

console.log(
  `drift charts at α ${options.alpha}: ${H} histories per scenario, drawn from ${POOL} default, ${H} high-miss and ${H} double-miss sweeps (seed offset ${OFFSET}); headline family (${args.policy}): ${headline.join(", ")}`,
);
// What the power rests on: the shift of critic_miss_rate in SDs of one run (binomial SD √(p(1 − p)/n) beside the measured one).
const missRate = (runs: Snapshot[]) => {
  const s = statsOf(runs.map((r) => r.metrics.critic_miss_rate!.value!));
  const units = runs[0]!.metrics.critic_miss_rate!.denominator!;
  return { mean: s.mean, sd: sdOf(s)!, binomial: Math.sqrt((s.mean * (1 - s.mean)) / units), units };
};
const [m0, m1] = [missRate(pool), missRate(doubleMiss)];
const shiftZ = (k: number) => (m1.mean - m0.mean) / Math.sqrt(m1.sd ** 2 / SHIFTED + m0.sd ** 2 / k);
console.log(
  `critic_miss_rate per run (${m0.units} trials): default ${m0.mean.toFixed(4)} ± ${m0.sd.toFixed(4)} SD (binomial ${m0.binomial.toFixed(4)}), double-miss ${m1.mean.toFixed(4)} ± ${m1.sd.toFixed(4)} (binomial ${m1.binomial.toFixed(4)}): ` +
    `a shift of ${(m1.mean - m0.mean).toFixed(4)}, ${((m1.mean - m0.mean) / m0.sd).toFixed(2)} in-control SDs; the mean of ${SHIFTED} shifted runs is ${shiftZ(IN_CONTROL).toFixed(2)} SDs of its difference from ${IN_CONTROL} reference runs, ${shiftZ(baseline.runs.length).toFixed(2)} from ${baseline.runs.length}`,
);
/**
 * What the new function predicts beside what was measured: the exact power of Fisher's test of
 * critic_miss_rate's counts against the doubled shift, at the level the histories' trends report
 * (their median), for one shifted run (the shift chart) and the mean of 3 (the sustained chart
 * alone: "by run 3" also counts runs 1 and 2, so it is a lower bound there). The reference is
 * the in-control pool's mean over 3 runs, or the baseline's counts.
 */
function predictedLine(shifted: readonly TrendResult[], withBaseline: boolean): string {
  const ds = shifted.flatMap((t) => t.metrics.find((m) => m.metric === "critic_miss_rate")?.detectable ?? []);
  if (ds.length === 0) return "predicted: critic_miss_rate is not judged by Fisher's test of its counts here";
  const level = ds.map((d) => d.level).sort((a, b) => a - b)[Math.floor(ds.length / 2)]!;
  const p0 = withBaseline ? ds[0]!.p0 : m0.mean;
  const referenceUnits = withBaseline ? ds[0]!.reference_units : IN_CONTROL * m0.units;
  const design = (runs: number) => ({ p0, referenceUnits, runUnits: m0.units, runs, level, direction: "up" as const });
  const shift = m1.mean - p0;
  const at = [1, SHIFTED].map((j) => countTestPower(design(j))(shift).toFixed(2));
  const sizes = [1, SHIFTED].map((j) =>
    detectableShifts(design(j), [0.5, 0.95])
      .map((x) => x?.toFixed(3) ?? "none")
      .join(" / "),
  );
  return (
    `predicted (exact power of Fisher's test at p0 ${p0.toFixed(3)} over ${referenceUnits} reference trials, one-sided level ${Number(level.toPrecision(3))}): ` +
    `a shift of ${shift.toFixed(3)} alarms on shifted run 1 with power ${at[0]}, on the mean of ${SHIFTED} with ${at[1]}; ` +
    `the shift caught with power 0.5 / 0.95 is ${sizes[0]} by 1 run, ${sizes[1]} by ${SHIFTED}`
  );
}

for (const withBaseline of [false, true]) {
  const ref = withBaseline ? baseline : null;
  const label = withBaseline
    ? `against the baseline ${args.baseline} (${baseline.runs.length} runs)`
    : `without a baseline (the first ${IN_CONTROL} runs are the reference)`;
  console.log(`\n${label}:`);
  const stable = histories.map((x) => trend(withBaseline ? x.stable.slice(IN_CONTROL) : x.stable, ref, options));
  const from = withBaseline ? 0 : IN_CONTROL;
  for (const family of ["headline", undefined] as const) {
    const counts = stable.map((t) => alarming(t, from, family).size);
    const name = family ?? "any family";
    console.log(
      `  ${STABLE} stable runs, alarming metrics (${name}): mean ${(counts.reduce((a, b) => a + b, 0) / H).toFixed(2)}, max ${Math.max(...counts)}; histories with more than one ${pct(counts.filter((c) => c > 1).length, H)}; with any ${pct(counts.filter((c) => c > 0).length, H)}   (required: at most 1)`,
    );
  }
  const which = stable.flatMap((t) =>
    [...alarming(t, from)].map(
      (m) =>
        `${m} (${t.alerts
          .filter((a) => a.metric === m && a.index >= from)
          .map((a) => a.chart)
          .join("+")})`,
    ),
  );
  if (which.length) console.log(`    false alarms: ${[...new Set(which)].map((w) => `${w} ×${which.filter((x) => x === w).length}`).join("; ")}`);
  for (const [name, pick] of [
    ["high-miss", (x: (typeof histories)[number]) => x.highMiss],
    ["double-miss", (x: (typeof histories)[number]) => x.doubleMiss],
  ] as const) {
    const shifted = histories.map((x) => trend([...x.stable.slice(0, IN_CONTROL), ...pick(x)], ref, options));
    const start = IN_CONTROL;
    const before = shifted.filter((t) => withBaseline && t.alerts.some((a) => a.index < IN_CONTROL)).length;
    for (const family of ["headline", undefined] as const) {
      const first = shifted.map((t) => firstAlarm(t, start, family));
      const by = (k: number) => pct(first.filter((f) => f !== null && f <= k).length, H);
      console.log(
        `  ${name} after ${IN_CONTROL} in-control runs (${family ?? "any family"}): alarm on shifted run 1 ${by(1)}; by run 2 ${by(2)}; by run 3 ${by(3)}`,
      );
    }
    if (name === "double-miss") console.log(`    ${predictedLine(shifted, withBaseline)}`);
    const metrics = shifted.flatMap((t) => [...alarming(t, start, "headline")]);
    console.log(
      `    alarming headline metrics: ${[...new Set(metrics)].map((m) => `${m} ×${metrics.filter((x) => x === m).length}`).join("; ") || "none"}${withBaseline ? `; histories alarming on the 3 in-control runs before the shift: ${before}` : ""}`,
    );
  }
}
const cpu = process.cpuUsage();
console.log(
  `\n${POOL + 2 * H} sweeps under ${sweeps.work} in ${((performance.now() - wallStart) / 1000).toFixed(0)} s of wall time, ${((cpu.user + cpu.system) / 60e6).toFixed(1)} CPU-minutes (this process), load average ${loadavg()[0]!.toFixed(1)} at the end`,
);
