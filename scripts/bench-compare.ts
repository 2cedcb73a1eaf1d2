// Error rates of compare's verdict over independent seeds (docs/design.md §11). A benchmark, not a
// test: it prints rates with their exact 95% intervals and asserts nothing.
//
//   node dist/scripts/bench-compare.js [--pairs N] [--work DIR] [--reps R]
//
//   --pairs N   pairs per series (default 20)
//   --work DIR  keep the sweeps in DIR and reuse the ones already there (bench-drift's work folder
//               holds the same sweeps; default: a fresh temp folder)
//   --reps R    permutation re-splits and bootstrap replicates per comparison (default 1000)
//
// Sweeps (the default sim sweep, in this process): default at seeds 5000 + i (i < 2N), high-miss
// at 7000 + i and double-miss at 8000 + i (i < N). Every sweep enters one pair only, so the pairs
// are independent: A/A pairs (default 5000 + 2i + 1 against 5000 + 2i), high-miss pairs (7000 + i
// against 5000 + i) and double-miss pairs (8000 + i against 5000 + N + i).
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { compareSnapshots, type Comparison } from "../harness/baseline/compare.ts";
import type { Snapshot } from "../src/formats/snapshot.ts";
import { pct, range, simProfile, simSweeps } from "./sim-sweeps.ts";

const { values: args } = parseArgs({
  options: { pairs: { type: "string", default: "20" }, work: { type: "string" }, reps: { type: "string", default: "1000" } },
});
const N = Number(args.pairs);
const reps = Number(args.reps);
const sweeps = simSweeps(args.work);

const wallStart = performance.now();
const stable = await sweeps.series("stable", range(5000, 2 * N));
const highMiss = await sweeps.series("high-miss", range(7000, N), simProfile("high-miss"));
const doubleMiss = await sweeps.series("double-miss", range(8000, N), simProfile("double-miss"));

const series: [string, [Snapshot, Snapshot][], string][] = [
  ["A/A (two default runs)", range(0, N).map((i) => [stable[2 * i + 1]!, stable[2 * i]!]), "no difference ≥ 0.95"],
  ["high-miss against default", range(0, N).map((i) => [highMiss[i]!, stable[i]!]), "differs ≥ 0.95"],
  ["double-miss against default", range(0, N).map((i) => [doubleMiss[i]!, stable[N + i]!]), "power, printed"],
];
const tally = (xs: string[]) => [...new Set(xs)].map((x) => `${x} ×${xs.filter((y) => y === x).length}`).join("; ") || "none";
console.log(`compare's verdict: ${N} independent pairs per series, ${reps} re-splits and bootstrap replicates per comparison`);
for (const [name, pairs, required] of series) {
  const results: Comparison[] = pairs.map(([a, b]) => compareSnapshots(a, b, { reps, seed: 0 }));
  const differs = results.filter((c) => c.verdict.differs).length;
  const tested = results.map((c) => c.metrics.filter((m) => m.p !== null).length);
  console.log(
    `${name}: "differs" ${pct(differs, N)}, "no difference beyond noise" ${pct(N - differs, N)}   (${required}); metrics tested per pair ${Math.min(...tested)}-${Math.max(...tested)}`,
  );
  console.log(`  metrics beyond noise: ${tally(results.flatMap((c) => c.verdict.metrics))}`);
  const profile = results.map((c) => c.profile.distance);
  const different = profile.filter((d) => d.p !== null && d.p <= 0.05).length;
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  console.log(
    `  defect-family profile: "different" (permutation p ≤ 0.05) ${pct(different, N)}; mean distance ${mean(profile.map((d) => d.statistic ?? 0)).toFixed(3)}; mean Δ all blockers per goal ${mean(results.map((c) => c.profile.total.delta)).toFixed(4)}`,
  );
}
const cpu = process.cpuUsage();
console.log(
  `${4 * N} sweeps under ${sweeps.work} in ${((performance.now() - wallStart) / 1000).toFixed(0)} s of wall time, ${((cpu.user + cpu.system) / 60e6).toFixed(1)} CPU-minutes (this process), load average ${loadavg()[0]!.toFixed(1)} at the end`,
);
