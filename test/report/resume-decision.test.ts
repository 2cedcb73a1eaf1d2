import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordedDecisionInput } from "../../harness/report/decision.ts";
import { PACKAGED_POLICY } from "../../harness/package.ts";
import { fieldtest } from "../helpers/cli.ts";

/** A run started with --baseline keeps leading its reports with the gate's decision when it is resumed. */

const ROOT = join(import.meta.dirname, "../..");
const ONLY = "batch-04-reprocess-with-skip-checks,missing-step-checkout-flag-absent,latency-vs-unsafe-*";

let root: string;
const at = (name: string) => join(root, name);
const banner = (html: string) => /id="verdict" data-decision="(\w+)"/.exec(html)?.[1];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "fieldtest-resume-decision-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the decision a run was started with", () => {
  it("is read from the latest session that asked for one, in either option form", () => {
    const m = (...commands: string[][]) => ({ command: commands[0]!, sessions: commands.map((command) => ({ command })) });
    expect(recordedDecisionInput(m(["fieldtest", "run"]))).toBeNull();
    expect(recordedDecisionInput(m(["fieldtest", "run", "--baseline", "b.json"]))).toEqual({ baseline: "b.json", policy: PACKAGED_POLICY });
    expect(
      recordedDecisionInput(
        m(
          ["fieldtest", "run", "--baseline", "a.json"],
          ["fieldtest", "run", "--resume", "d", "--baseline=c.json", "--policy=p.yaml"],
          ["fieldtest", "run", "--resume", "d"],
        ),
      ),
    ).toEqual({ baseline: "c.json", policy: "p.yaml" });
  });
});

describe("fieldtest run --resume", () => {
  it("keeps the gate's banner the run was started with, and warns when that baseline is gone", async () => {
    const dir = at("gated");
    const baseline = at("base.json");
    cpSync(join(ROOT, "baselines/sim-default.json"), baseline);
    const run = await fieldtest("run", "--only", ONLY, "--trials", "3", "--baseline", baseline, "--policy", join(ROOT, "gate.sim.yaml"), "--out", dir);
    expect([0, 1], run.stderr).toContain(run.code);
    const decided = banner(readFileSync(join(dir, "report.html"), "utf8"));
    expect(decided).toMatch(/^(pass|regression|inconclusive|infrastructure)$/);

    const resumed = await fieldtest("run", "--resume", dir);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(banner(readFileSync(join(dir, "report.html"), "utf8"))).toBe(decided);

    // A recorded baseline that is gone does not stop a resume: its reports go without it, and say so.
    rmSync(baseline);
    const gone = await fieldtest("run", "--resume", dir);
    expect(gone.code).toBe(0);
    expect(gone.stderr).toMatch(
      /^fieldtest: warning: the run's reports decided against .*base\.json .*, which cannot be read now \(.*\): they are written without a decision$/m,
    );
    expect(banner(readFileSync(join(dir, "report.html"), "utf8"))).toBe("none");
  }, 120_000);
});
