import { describe, expect, it } from "vitest";
import { runFieldtest } from "../helpers/cli.ts";

const run = (env: Record<string, string>, ...args: string[]) => runFieldtest(["run", "--shard", "auto", ...args], env);

describe("fieldtest run --shard auto (in process)", () => {
  it("takes the shard from a Kubernetes Indexed Job's environment", async () => {
    const r = await run({ JOB_COMPLETION_INDEX: "1", FIELDTEST_SHARD_COUNT: "4" }, "--dry-run");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^dry run: \d+ engine trials, \d+ critic-only trials \(shard 2\/4 of 1220\)/);
  });

  it("refuses, in one line and with exit 2, when the environment names no shard", async () => {
    const r = await run({ JOB_COMPLETION_INDEX: "1" }, "--dry-run");
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      "",
      "fieldtest: environment: --shard auto: FIELDTEST_SHARD_COUNT is not set (JOB_COMPLETION_INDEX is: the Kubernetes Indexed Job shard index needs its count)\n",
    ]);
  });
});
