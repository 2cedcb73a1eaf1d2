import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../bin/fieldtest.js", import.meta.url));
const run = (env: Record<string, string>, ...args: string[]) =>
  spawnSync(process.execPath, [BIN, "run", "--shard", "auto", ...args], { encoding: "utf8", env: { PATH: process.env.PATH ?? "", ...env } });

describe("fieldtest run --shard auto (spawned)", () => {
  it("takes the shard from a Kubernetes Indexed Job's environment", () => {
    const r = run({ JOB_COMPLETION_INDEX: "1", FIELDTEST_SHARD_COUNT: "4" }, "--dry-run");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^dry run: \d+ engine trials, \d+ critic-only trials \(shard 2\/4 of 1220\)/);
  });

  it("refuses, in one line and with exit 2, when the environment names no shard", () => {
    const r = run({ JOB_COMPLETION_INDEX: "1" }, "--dry-run");
    expect([r.status, r.stdout, r.stderr]).toEqual([2, "", "fieldtest: environment: --shard auto: FIELDTEST_SHARD_COUNT is not set (JOB_COMPLETION_INDEX is: the Kubernetes Indexed Job shard index needs its count)\n"]);
  });
});
