// Test-suite benchmark (issue 16). Prints numbers; asserts nothing about time.
//
//   node dist/scripts/bench-tests.js [vitest args...]
//
// Runs the suite as `npm test` does (`vitest run`) and prints its wall time, its CPU time (user +
// system of vitest, its workers and every process they started), the load average before and
// after (the machine is shared: wall time scales with the load), and the test files that cost the
// most CPU, each split into its worker's own time and its child processes' (spawned commands,
// killed sweeps). Linux only (it reads /proc).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { PACKAGE_ROOT } from "../harness/package.ts";
import { procCpuMs } from "../test/helpers/proc-cpu.ts";

const TOP = 15;
const byFile = join(mkdtempSync(join(tmpdir(), "ft-bench-tests-")), "cpu-by-file.jsonl");
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

const loadBefore = load();
const started = performance.now();
const code = await new Promise<number | null>((resolve) => {
  const vitest = spawn(process.execPath, [join(PACKAGE_ROOT, "node_modules/vitest/vitest.mjs"), "run", ...process.argv.slice(2)], {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, FIELDTEST_CPU_BY_FILE: byFile },
    stdio: ["ignore", "ignore", "inherit"],
  });
  vitest.on("exit", resolve);
});
const wallMs = performance.now() - started;
// This process's children are vitest's whole tree, counted once it has been waited for.
const treeCpuMs = procCpuMs().children;

if (!existsSync(byFile)) {
  // No test file ran: the build (vitest's global set-up) or vitest itself failed first.
  console.log(`vitest run ${process.argv.slice(2).join(" ")}: exit ${code}, no test file ran: \`npm test\` shows why`);
  process.exit(code || 1);
}
const rows = readFileSync(byFile, "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as { file: string; self_ms: number; children_ms: number })
  .sort((a, b) => b.self_ms + b.children_ms - (a.self_ms + a.children_ms));
const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((s, r) => s + f(r), 0);
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

console.log(`vitest run ${process.argv.slice(2).join(" ")}: exit ${code}`);
if (code !== 0) console.log("  some tests failed: `npm test` shows which (this script keeps vitest's report quiet)");
console.log(
  `  wall ${s(wallMs)}, CPU ${s(treeCpuMs)} (${(treeCpuMs / wallMs).toFixed(2)} cores busy on average); load average before ${loadBefore}, after ${load()}`,
);
console.log(
  `  ${rows.length} test files: ${s(sum((r) => r.self_ms))} in the workers, ${s(sum((r) => r.children_ms))} in the processes they started; the rest is vitest's own`,
);
console.log(`  most CPU (worker + children):`);
for (const r of rows.slice(0, TOP))
  console.log(
    `  ${s(r.self_ms + r.children_ms).padStart(8)}  ${s(r.self_ms).padStart(7)} + ${s(r.children_ms).padStart(7)}  ${relative(PACKAGE_ROOT, r.file)}`,
  );
process.exitCode = code ?? 1;
