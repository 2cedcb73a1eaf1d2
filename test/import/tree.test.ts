import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fieldtest } from "../helpers/cli.ts";
import type { Comparison } from "../../harness/baseline/compare.ts";
import { importPlannerCritic, type ImportResult } from "../../harness/import/planner-critic/run.ts";
import { loadRun } from "../../harness/run/load.ts";
import { readManifest } from "../../harness/run/manifest.ts";
import { readTrials } from "../../harness/run/store.ts";
import { sha256 } from "../../src/canonical.ts";
import { CorpusGoalSchema } from "../../src/formats/goal.ts";
import { loadFile } from "../../src/formats/load.ts";
import { CRITIC_PROMPTS, removeTempDirs, tempDir, writeFile, writeSweepReport, writeTreeGoals, writeTreeRun, type TreeRun } from "./fixtures.ts";

/**
 * The whole field-test tree (predecessor-notes.md §5.6, Appendix A), generated: the 0.1.0 full
 * sweep with every engine dimension under the adversarial critic prompt, then the batch runners'
 * groups under the severity-rules prompt (critic-fix, its archived failures, remain-scenario with
 * every domain goal re-run per scenario), and a group that mixed the two prompts.
 */

const FULL = "0.1.0/full-sweep";
const DATED = "0.1.0-08.20.2026";
const run = (
  dir: string,
  goalId: string,
  dimension: string,
  critic: TreeRun["critic"],
  at: string,
  status: TreeRun["status"] = "escalated",
  reason: string | null = "revision_cap_reached",
): TreeRun => ({
  dir,
  goalId,
  dimension,
  critic,
  at,
  status,
  reason: status === "approved" ? "approved" : reason,
});

const RUNS: TreeRun[] = [
  run(`${FULL}/core-api/db-01`, "db-01", "core-api", "adversarial", "2026-08-19T10:00:00Z"),
  run(`${FULL}/core-api/db-02`, "db-02", "core-api", "adversarial", "2026-08-19T10:01:00Z", "approved"),
  run(`${FULL}/critique-modes/db-01/heuristic-only`, "db-01", "critique-heuristic-only", null, "2026-08-19T10:02:00Z"),
  run(`${FULL}/critique-modes/db-01/deterministic-first`, "db-01", "critique-deterministic-first", "adversarial", "2026-08-19T10:03:00Z"),
  run(
    `${FULL}/critique-modes/db-01/llm-every-revision`,
    "db-01",
    "critique-llm-every-revision",
    "adversarial",
    "2026-08-19T10:04:00Z",
    "escalated",
    "converged_stalled",
  ),
  // The budget and replan dimensions did not wrap the critic: only planner calls were logged.
  run(`${FULL}/budget/db-01`, "db-01", "budget", null, "2026-08-19T10:05:00Z", "escalated", "replan_aborted"),
  run(`${FULL}/replan/db-01/patch`, "db-01", "replan-patch", null, "2026-08-19T10:06:00Z"),
  run(`${FULL}/replan/db-01/restart`, "db-01", "replan-restart", null, "2026-08-19T10:07:00Z"),
  run(`${FULL}/replan/db-01/abort`, "db-01", "replan-abort", null, "2026-08-19T10:08:00Z", "escalated", "replan_aborted"),
  run(`${DATED}/critic-fix/db-01/core-api/db-01`, "db-01", "core-api", "severity", "2026-08-20T10:00:00Z"),
  run(`${DATED}/critic-fix/archived-failures/db-02/core-api/db-02`, "db-02", "core-api", "severity", "2026-08-20T09:00:00Z", "error", "planning_unavailable"),
  // Under the severity rules the strict goal's advisory findings no longer block: it is approved.
  run(`${DATED}/remain-scenario/db-01/core-api/db-01`, "db-01", "core-api", "severity", "2026-08-20T11:00:00Z", "approved"),
  run(`${DATED}/remain-scenario/db-01/core-api/db-02`, "db-02", "core-api", "severity", "2026-08-20T11:01:00Z", "approved"),
  run(`${DATED}/remain-scenario/db-02/core-api/db-01`, "db-01", "core-api", "severity", "2026-08-20T11:02:00Z", "approved"),
  run(`${DATED}/remain-scenario/db-02/core-api/db-02`, "db-02", "core-api", "severity", "2026-08-20T11:03:00Z", "approved"),
  run(`mixed/db-01/core-api/db-01`, "db-01", "core-api", "adversarial", "2026-08-21T10:00:00Z"),
  run(`mixed/db-02/core-api/db-02`, "db-02", "core-api", "severity", "2026-08-21T10:01:00Z", "approved"),
];

const hash8 = (k: keyof typeof CRITIC_PROMPTS) => sha256(CRITIC_PROMPTS[k]).slice(0, 8);

let root: string;
let result: ImportResult;
let logged = 0;
const byName = (name: string) => result.runs.find((r) => r.name === name)!;

beforeAll(() => {
  root = tempDir("tree");
  const reports = join(root, "reports");
  writeTreeGoals(join(root, "goals"), [
    { id: "db-01", risk: "strict", approve: false },
    { id: "db-02", risk: "balanced", approve: true },
  ]);
  writeSweepReport(join(reports, FULL), "deterministic-first", 1);
  writeSweepReport(join(reports, DATED, "critic-fix", "db-01"), "deterministic-first", 4);
  logged = RUNS.reduce((n, r) => n + writeTreeRun(reports, r), 0);
  // Traces of dimensions that never ran the engine, and the replan summary of its three children.
  writeFile(
    join(reports, FULL, "store", "db-01", "trace.json"),
    JSON.stringify({ dimension: "store", goal_id: "db-01", pass: true, plan_id: "plan-db-01", stored: true }),
  );
  writeFile(join(reports, FULL, "replan", "db-01", "trace.json"), JSON.stringify({ dimension: "replan", goal_id: "db-01", results: {}, pass: true }));
  result = importPlannerCritic({
    reportsDir: reports,
    goalsDir: join(root, "goals"),
    out: join(root, "runs"),
    force: false,
    runId: "tree",
    command: ["fieldtest", "import"],
    now: () => new Date("2026-12-03T12:00:00Z"),
  });
});

afterAll(removeTempDirs);

describe("importing the whole PlannerCritic field-test tree", () => {
  it("makes every run group × engine dimension its own run, and splits a group that mixed critic prompts", () => {
    expect(result.problems).toEqual([]);
    expect(result.runs.map((r) => r.name)).toEqual([
      `${DATED}/critic-fix/archived-failures/core-api`,
      `${DATED}/critic-fix/core-api`,
      `${DATED}/remain-scenario/core-api`,
      `${FULL}/budget`,
      `${FULL}/core-api`,
      `${FULL}/critique-modes/deterministic-first`,
      `${FULL}/critique-modes/heuristic-only`,
      `${FULL}/critique-modes/llm-every-revision`,
      `${FULL}/replan/abort`,
      `${FULL}/replan/patch`,
      `${FULL}/replan/restart`,
      ...[`mixed/core-api@critic-${hash8("adversarial")}`, `mixed/core-api@critic-${hash8("severity")}`].sort(),
    ]);
  });

  it("brings over every recorded call: none skipped, none left in a log", () => {
    expect(logged).toBe(RUNS.reduce((n, r) => n + (r.critic ? 2 : 1), 0));
    expect(result.calls).toEqual({ logged, imported: logged, untraced: 0, untraced_trials: 0, unplaced: 0 });
    expect(result.runs.reduce((n, r) => n + readTrials(r.dir).reduce((k, t) => k + t.calls.length, 0), 0)).toBe(logged);
    expect(result.skipped.map((s) => s.dimension).sort()).toEqual(["replan", "store"]);
  });

  it("records each dimension's settings: critique modes as --mode, the revision caps, replan policies on the goals", () => {
    const settings = (name: string) => {
      const m = readManifest(byName(name).dir);
      return [m.config.mode, m.config.maxRounds];
    };
    expect(settings(`${FULL}/core-api`)).toEqual(["gates-first", 1]);
    expect(settings(`${FULL}/critique-modes/llm-every-revision`)).toEqual(["every-round", 3]);
    expect(settings(`${FULL}/critique-modes/heuristic-only`)).toEqual(["gates-only", 3]);
    expect(settings(`${FULL}/critique-modes/deterministic-first`)).toEqual(["gates-first", 3]);
    expect(settings(`${FULL}/budget`)).toEqual(["gates-first", 1]);
    expect(settings(`${FULL}/replan/restart`)).toEqual(["gates-first", 2]);
    expect(settings(`${DATED}/critic-fix/core-api`)).toEqual(["gates-first", 4]);
    expect(byName(`${DATED}/remain-scenario/core-api`).source.max_rounds_note).toBe("no report.json: the predecessor's default cap 4");
    const goal = (name: string) => loadFile(join(byName(name).dir, "goals", "database", "db-01.json"), CorpusGoalSchema);
    expect(goal(`${FULL}/core-api`).replan_policy).toBe("patch");
    expect(goal(`${FULL}/core-api`).constraints.max_revisions ?? null).toBeNull();
    expect(goal(`${FULL}/budget`)).toMatchObject({ replan_policy: "abort", constraints: { max_revisions: 0 } });
    expect(goal(`${FULL}/replan/restart`).replan_policy).toBe("restart");
    expect(byName(`${FULL}/replan/abort`).source.replan_policy).toBe("abort");
    const notes = byName(`${FULL}/budget`).trials[0]!.conversion.notes;
    expect(notes).toContainEqual({ kind: "derived", subject: "goal", detail: expect.stringMatching(/max_revisions 1 and replan_policy abort/) });
  });

  it("records each run's critic prompt by its system-prompt hash (null where no critic call was logged)", () => {
    const critic = (name: string) => readManifest(byName(name).dir).roles.critic.prompt as { system_sha256: string | null };
    expect(critic(`${FULL}/core-api`).system_sha256).toBe(sha256(CRITIC_PROMPTS.adversarial));
    expect(critic(`${DATED}/critic-fix/core-api`).system_sha256).toBe(sha256(CRITIC_PROMPTS.severity));
    expect(critic(`${FULL}/budget`).system_sha256).toBeNull();
    expect(critic(`${FULL}/critique-modes/heuristic-only`).system_sha256).toBeNull();
    for (const r of result.runs.filter((r) => r.name.startsWith("mixed/"))) expect(r.trials).toHaveLength(1);
  });

  it("gives a goal re-run in one group (one scenario after another) one trial per run", () => {
    const trials = readTrials(byName(`${DATED}/remain-scenario/core-api`).dir);
    expect(trials.map((t) => `${t.item_id}/${t.trial}`).sort()).toEqual(["db-01/0", "db-01/1", "db-02/0", "db-02/1"]);
    expect(readManifest(byName(`${DATED}/remain-scenario/core-api`).dir).plan.trials).toBe(2);
  });

  it("reads the critique-mode and replan traces, which have no plan, from the logged plans", () => {
    const [t] = readTrials(byName(`${FULL}/critique-modes/llm-every-revision`).dir);
    expect(t).toMatchObject({ status: "escalated", escalation_reason: "converged_stalled" });
    expect(t!.rounds).toHaveLength(1);
    expect(t!.rounds[0]!.critic!.findings.map((f) => [f.family, f.raw.severity, f.severity])).toEqual([
      ["risk", "blocker", "warning"],
      ["missing_steps", "blocker", "warning"],
      ["weak_rollback", "warning", "warning"],
    ]);
    const run = loadRun(byName(`${FULL}/replan/abort`).dir, byName(`${FULL}/replan/abort`).dir);
    expect(run.summary.counts.trials).toEqual({ imported: 1 });
  });

  it("replaces a previous import only with --force, removing only the run folders its index lists", () => {
    const out = join(root, "runs");
    writeFile(join(out, "notes.txt"), "mine");
    const again = (force: boolean) =>
      importPlannerCritic({
        reportsDir: join(root, "reports"),
        goalsDir: join(root, "goals"),
        out,
        force,
        runId: "again",
        command: [],
        now: () => new Date("2026-12-03T13:00:00Z"),
      });
    expect(() => again(false)).toThrow(/not empty/);
    const second = again(true);
    expect(second.runs.map((r) => r.name)).toEqual(result.runs.map((r) => r.name));
    expect(readManifest(second.runs[0]!.dir).run_id).toBe("again-01");
    expect(existsSync(join(out, "notes.txt"))).toBe(true);
  });

  it("compare between the two critic prompts names the system-prompt hash as the cause", async () => {
    const a = byName(`${DATED}/remain-scenario/core-api`).dir;
    const b = byName(`${FULL}/core-api`).dir;
    const r = await fieldtest("compare", a, b, "--json", "--reps", "200");
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout) as Comparison;
    // Every recorded difference is named: the prompt, and the loop settings and trials per run of the two dimensions.
    expect(c.differences).toContainEqual({
      kind: "prompt",
      part: "critic.system_prompt_sha256",
      role: "critic",
      baseline: sha256(CRITIC_PROMPTS.adversarial),
      candidate: sha256(CRITIC_PROMPTS.severity),
    });
    expect(c.differences.map((d) => d.kind).sort()).toEqual(["loop", "prompt", "trials"]);
    expect(c.coverage.paired).toEqual(["imported/db-01", "imported/db-02"]);
    const suite = c.suites.find((s) => s.suite === "imported")!;
    expect(suite.transitions).toEqual({ "escalated → approved": 1, "approved → approved": 1 });
    expect(suite.changed_items).toEqual([
      expect.objectContaining({ item: "imported/db-01", b: { escalated: 1 }, a: { approved: 2 }, causes: ["critic.system_prompt_sha256"] }),
    ]);
    const text = (await fieldtest("compare", a, b, "--reps", "200")).stdout;
    expect(text).toContain(`  critic.system_prompt_sha256: ${sha256(CRITIC_PROMPTS.adversarial)} -> ${sha256(CRITIC_PROMPTS.severity)}`);
    expect(text).toMatch(/ {4}imported\/db-01: B escalated 1 -> A approved 2 \(p [^;]+; causes: critic\.system_prompt_sha256\)/);
  });
});
