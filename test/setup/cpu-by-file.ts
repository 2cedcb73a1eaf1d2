// Loaded only by scripts/bench-tests.ts (FIELDTEST_CPU_BY_FILE names the output): appends each
// test file's CPU time, the worker's own and that of the child processes it waited for, so the
// benchmark can rank files by what they cost.
import { appendFileSync } from "node:fs";
import { afterAll, beforeAll, expect } from "vitest";
import { procCpuMs } from "../helpers/proc-cpu.ts";

let start = procCpuMs();
beforeAll(() => {
  start = procCpuMs();
});
afterAll(() => {
  const end = procCpuMs();
  const line = { file: expect.getState().testPath, self_ms: end.self - start.self, children_ms: end.children - start.children };
  appendFileSync(process.env.FIELDTEST_CPU_BY_FILE!, `${JSON.stringify(line)}\n`);
});
