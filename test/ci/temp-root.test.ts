import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { basename } from "node:path";
import { describe, expect, it } from "vitest";

// test/setup/temp-root.ts: the suite's temporary folders go under one folder it removes at the end.
describe("the suite's temporary folder", () => {
  it("is the run's own, in this worker and in the processes it starts", () => {
    const root = tmpdir();
    expect(basename(root)).toMatch(/^fieldtest-tests-/);
    const child = execFileSync(process.execPath, ["-e", "process.stdout.write(require('node:os').tmpdir())"], { encoding: "utf8" });
    expect(child).toBe(root);
  });
});
