import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runFieldtest } from "../helpers/cli.ts";
import { HAND_GOAL, logEntry, logText, predecessorPlan, predecessorTask, SAMPLE, tempDir, trace, writeFieldTest, removeTempDirs } from "./fixtures.ts";

const run = (...args: string[]) => runFieldtest(["import", "planner-critic", ...args]);

describe("fieldtest import planner-critic (in process)", () => {
  afterAll(removeTempDirs);
  it("imports the sample into a run directory and exits 0", async () => {
    const out = join(tempDir("cli"), "run");
    const r = await run(join(SAMPLE, "reports"), "--goals", join(SAMPLE, "goals"), "--out", out);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^imported 3 trials of 3 goals into 2 runs: 8 of 8 logged calls in trials \(0 calls in 0 trials whose outcome no trace records\);/,
    );
    expect(r.stdout).toContain("critic-fix/core-api       2 trials, 2 goals, mode gates-first, at most 4 rounds");
    expect(existsSync(join(out, "import.json"))).toBe(true);
    for (const f of ["manifest.json", "trials.jsonl", "import.json", "goals/unrecorded/pay-03-billing-subscription.json"])
      expect(existsSync(join(out, "critic-fix--core-api", f))).toBe(true);
  });

  it("reports an unusable trace in one line, imports nothing and exits 2", async () => {
    const root = tempDir("cli-bad");
    const plan = predecessorPlan([predecessorTask("a")], []);
    const bad = { ...trace(plan, { status: "approved", reason_code: "approved", revision_count: 1, llm_calls: 0 }), result: { status: "done" } };
    const dirs = writeFieldTest(root, {
      goal: HAND_GOAL,
      trace: bad,
      planner: logText([logEntry({ call: 1, role: "planner", timestamp: "2026-08-20T10:00:05Z", duration_seconds: 1, response: plan })]),
    });
    const out = join(root, "run");
    const r = await run(dirs.reports, "--goals", dirs.goals, "--out", out);
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^fieldtest: import: .*trace\.json: line \d+: result\.status: /);
    expect(lines.at(-1)).toBe(`fieldtest: import: nothing imported from ${dirs.reports}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });
});
