/**
 * Gate cost on synthetic sound plans of 10 to 10,000 tasks in three shapes (chains of guarded
 * changes, fans, parallel groups). Prints the median time per plan and the growth ratio between
 * sizes (CPU time), and sets exit code 1 when 1,000 → 10,000 tasks grows more than 15x or a 1,000-task plan
 * takes 50 ms or more. *
 *   node dist/scripts/bench-gates.js
 */
import { GoalSchema } from "../src/formats/goal.ts";
import { PlanSchema, type Plan } from "../src/formats/plan.ts";
import { runGates } from "../src/gates/index.ts";
import { BENCH_GOAL, chain, fan, groups } from "./bench-plans.ts";

const SIZES = [10, 100, 1_000, 10_000];
const goal = GoalSchema.parse(BENCH_GOAL);

/**
 * CPU time of the gates per plan, in ms. Each sample checks 10,000 tasks' worth of distinct plans
 * (1,000 copies of a 10-task plan, one 10,000-task plan), so every size touches as much memory and
 * is as exposed to whatever else runs on the machine; the ratio then shows how the work grows,
 * not whether a small plan stays in the CPU cache. CPU time, because the benchmark often shares
 * two cores with test runs and waiting for a core is not the gates' cost; the least over the
 * samples, because a sample that overlaps a garbage collection (whose threads count as this
 * process's CPU time) measures the collector.
 */
function leastCpuMsPerPlan(copies: readonly Plan[]): number {
  let least = Number.POSITIVE_INFINITY;
  for (let sample = 0; sample < 41; sample++) {
    const start = process.cpuUsage();
    for (const plan of copies) {
      // A new object each time, so the cached graph is built anew, as for a new plan.
      const findings = runGates(goal, { ...plan });
      if (findings.length > 0) throw new Error(`bench plan ${plan.id} is not sound: ${findings[0]!.key}`);
    }
    const used = process.cpuUsage(start);
    least = Math.min(least, (used.user + used.system) / 1000 / copies.length);
  }
  return least;
}

const SHAPES = [
  ["chain", chain],
  ["fan", fan],
  ["groups", groups],
] as const;
const cases = SHAPES.flatMap(([shape, build]) =>
  SIZES.map((n) => ({ shape, n, copies: Array.from({ length: Math.max(1, Math.round(10_000 / n)) }, () => PlanSchema.parse(build(n))) })),
);
// Two passes over every case, keeping each case's least: the first pass also warms the JIT and
// lets the heap settle, which would otherwise be charged to whichever case came first.
const least = cases.map(() => Number.POSITIVE_INFINITY);
for (let pass = 0; pass < 2; pass++) cases.forEach((c, k) => (least[k] = Math.min(least[k]!, leastCpuMsPerPlan(c.copies))));

let failed = false;
console.log("shape    tasks   edges   CPU ms/plan   ratio to previous size");
cases.forEach(({ shape, n, copies }, k) => {
  const ms = least[k]!;
  const previous = n === SIZES[0] ? null : least[k - 1]!;
  const ratio = previous === null ? "" : `${(ms / previous).toFixed(1)}x`;
  console.log(`${shape.padEnd(7)} ${String(n).padStart(6)} ${String(copies[0]!.dependencies.length).padStart(7)} ${ms.toFixed(3).padStart(12)}   ${ratio}`);
  if (n === 1_000 && ms >= 50) {
    console.log(`  FAIL: ${shape} with 1,000 tasks took ${ms.toFixed(1)} ms (limit 50 ms)`);
    failed = true;
  }
  if (n === 10_000 && previous !== null && ms / previous > 15) {
    console.log(`  FAIL: ${shape} grew ${(ms / previous).toFixed(1)}x from 1,000 to 10,000 tasks (limit 15x)`);
    failed = true;
  }
});
console.log(failed ? "bench-gates: FAILED" : "bench-gates: ok (1,000 tasks < 50 ms; 1,000 -> 10,000 grows <= 15x)");
if (failed) process.exitCode = 1;
