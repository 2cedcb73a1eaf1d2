import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fieldtest } from "../helpers/cli.ts";
import { convertGoal } from "../../harness/import/planner-critic/goal.ts";
import { findGoals } from "../../harness/import/planner-critic/sources.ts";
import { matchRun, parseLog } from "../../harness/import/planner-critic/logs.ts";
import { importPlannerCritic, type ImportResult } from "../../harness/import/planner-critic/run.ts";
import { TraceSchema } from "../../harness/import/planner-critic/schema.ts";
import { buildTrial } from "../../harness/import/planner-critic/trial.ts";
import { readTrials } from "../../harness/run/store.ts";
import { trialKey, type RoundRecord } from "../../src/formats/records.ts";
import { removeTempDirs, tempDir, writeSweepReport, writeTreeGoals, writeTreeRun } from "./fixtures.ts";

/** Upstream logs that hold engine runs no trace.json records (test/fixtures/planner-critic-0.1.0-untraced/README.md). */
const UNTRACED = fileURLToPath(new URL("../fixtures/planner-critic-0.1.0-untraced", import.meta.url));
const CASES = fileURLToPath(new URL("../fixtures/planner-critic-0.1.0-cases", import.meta.url));
const SWEEP = join(UNTRACED, "reports", "0.1.0", "full-sweep");
const CORE = "0.1.0/full-sweep/core-api";
const DETERMINISTIC = "0.1.0/full-sweep/critique-modes/deterministic-first";
const NOW = () => new Date("2026-12-06T12:00:00Z");

const importInto = (reports: string, goals: string, out: string) =>
  importPlannerCritic({ reportsDir: reports, goalsDir: goals, out, force: false, runId: "untraced", command: ["fieldtest", "import"], now: NOW });

let out: string;
let result: ImportResult;
const trialsOf = (name: string) => readTrials(result.runs.find((r) => r.name === name)!.dir);

beforeAll(() => {
  out = join(tempDir("untraced"), "runs");
  result = importInto(join(UNTRACED, "reports"), join(UNTRACED, "goals"), out);
});

afterAll(removeTempDirs);

describe("engine runs no trace.json records", () => {
  it("are trials of their goal in the run of the trace beside their logs, or of their folder's dimension, so every call is in a trial", () => {
    expect(result.problems).toEqual([]);
    expect(result.goals).toBe(2);
    expect(result.runs.map((r) => [r.name, r.trials.map((t) => `${t.item_id}/${t.trial}`)])).toEqual([
      [CORE, ["k8s-01-canary-deploy/0", "k8s-01-canary-deploy/1", "k8s-01-canary-deploy/2"]],
      [DETERMINISTIC, ["db-01-schema-migration/0", "db-01-schema-migration/1", "k8s-01-canary-deploy/0"]],
    ]);
    // core-api: 5 + 5 calls, 2 + 2 of them in the two earlier runs; db-01: 3 + 2, 1 after its traced run; the traceless folder: 3 + 1.
    expect(result.calls).toEqual({ logged: 19, imported: 19, untraced: 9, untraced_trials: 4, unplaced: 0 });
    const index = JSON.parse(readFileSync(join(out, "import.json"), "utf8"));
    expect(index.calls).toEqual(result.calls);
    expect(index.runs.map((r: { untraced_trials: number }) => r.untraced_trials)).toEqual([2, 2]);
    expect(readdirSync(result.runs[0]!.dir).sort()).toEqual(["goals", "import.json", "manifest.json", "trials.jsonl"]);
  });

  it("number a goal's trials in the order its runs ran: the first run is trial 0", () => {
    const k8s = trialsOf(CORE);
    expect(k8s.map((t) => [t.trial, t.status, t.started_at.slice(11, 16), t.conversion!.source.trace !== null])).toEqual([
      [0, "error", "02:00", false],
      [1, "error", "02:04", false],
      [2, "escalated", "02:20", true],
    ]);
    const db = trialsOf(DETERMINISTIC).filter((t) => t.item_id === "db-01-schema-migration");
    expect(db.map((t) => [t.trial, t.status, t.started_at.slice(11, 16)])).toEqual([
      [0, "escalated", "02:30"],
      [1, "error", "02:33"],
    ]);
  });

  it("have no recorded outcome: status error, verdict escalate, no reason, and one sentence saying why", () => {
    const untraced = result.runs.flatMap((r) => readTrials(r.dir)).filter((t) => t.status === "error");
    expect(untraced.map((t) => [t.item_id, t.trial, t.error])).toEqual([
      ["k8s-01-canary-deploy", 0, "outcome not recorded: no trace.json records this engine run; a later run of the goal replaced it"],
      ["k8s-01-canary-deploy", 1, "outcome not recorded: no trace.json records this engine run; a later run of the goal replaced it"],
      ["db-01-schema-migration", 1, "outcome not recorded: no trace.json records this engine run; the run left no trace"],
      ["k8s-01-canary-deploy", 0, "outcome not recorded: no trace.json records this engine run; the run left no trace"],
    ]);
    for (const t of untraced) {
      expect([t.verdict, t.escalation_reason, t.escalation_reasons]).toEqual(["escalate", null, []]);
      expect(t.rounds.length).toBeGreaterThan(0);
      expect(t.rounds.every((r) => r.decision === "revise" && r.reason === null)).toBe(true);
      expect(t.conversion!.source.trace).toBeNull();
      expect(t.conversion!.notes).toContainEqual(expect.objectContaining({ kind: "not_recorded", subject: "trace.json" }));
    }
    const traceless = untraced.at(-1)!.conversion!.source;
    expect(traceless.planner_log).toBe(
      join(SWEEP, "critique-modes/k8s-01-canary-deploy/deterministic-first/llm-logs/k8s-01-canary-deploy_planner_llm_log.jsonl"),
    );
    // Cut short: its third planner answer, a revision of round 1's plan, was not accepted.
    expect(untraced.at(-1)!.calls.map((c) => `${c.role[0]}${c.round}:${c.outcome}`)).toEqual(["p0:ok", "c0:ok", "p1:ok", "p2:invalid_output"]);
    expect(untraced.at(-1)!.rounds).toHaveLength(2);
  });

  it("are rescored exactly as a traced run's rounds, with every decision revise", () => {
    const dir = join(SWEEP, "core-api/k8s-01-canary-deploy");
    const log = (role: "planner" | "critic") => {
      const file = join(dir, "llm-logs", `k8s-01-canary-deploy_${role}_llm_log.jsonl`);
      return parseLog(file, readFileSync(file, "utf8"), role).entries;
    };
    const first = matchRun(log("planner"), log("critic"), null).runs[0]!;
    const file = findGoals(join(UNTRACED, "goals"), []).get("k8s-01-canary-deploy")!;
    const converted = convertGoal(file.goal, file.assertions, { domain: file.domain });
    if (typeof converted === "string") throw new Error(converted);
    // The same run as if a trace recorded it escalated, with no plan of its own.
    const recorded = TraceSchema.parse({ dimension: "core-api", goal_id: file.goal.id, status: "escalated", reason_code: "converged_stalled" });
    const traced = buildTrial({
      goal: converted.goal,
      goal_notes: [],
      item_hash: "h",
      trial: 0,
      trace: recorded,
      run: first,
      unplaced: 0,
      source: { trace: "t", planner_log: null, critic_log: null },
      fallback_time: "",
    });
    const [imported] = trialsOf(CORE);
    const scoring = (rounds: RoundRecord[]) => rounds.map(({ decision: _d, reason: _r, ...rest }) => rest);
    expect(scoring(imported!.rounds)).toEqual(scoring(traced.rounds));
    expect(imported!.rounds[0]!.critic).not.toBeNull();
    expect(traced.rounds.at(-1)!.decision).toBe("escalate");
    expect(imported!.rounds.map((r) => r.decision)).toEqual(["revise"]);
  });

  it("keep trial keys unique and every file the same when imported again", () => {
    for (const r of result.runs) {
      const keys = r.trials.map(trialKey);
      expect(new Set(keys).size).toBe(keys.length);
    }
    const [a, b] = ["untraced-a", "untraced-b"].map((prefix) => join(tempDir(prefix), "runs"));
    for (const dir of [a!, b!]) importInto(join(UNTRACED, "reports"), join(UNTRACED, "goals"), dir);
    const files = (root: string) => readdirSync(root, { recursive: true, encoding: "utf8" }).sort();
    expect(files(b!)).toEqual(files(a!));
    expect(files(a!)).toContain(join("0.1.0--full-sweep--core-api", "trials.jsonl"));
    for (const f of files(a!).filter((x) => /\.jsonl?$/.test(x))) expect(readFileSync(join(b!, f), "utf8"), f).toBe(readFileSync(join(a!, f), "utf8"));
  });

  it("leave a run that `fieldtest report` summarizes: errors counted, never judged, decided figures their traces'", async () => {
    const dir = result.runs.find((r) => r.name === DETERMINISTIC)!.dir;
    const r = await fieldtest("report", dir, "--corpus", dir);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    expect(summary.counts.trials.imported).toBe(3);
    expect(summary.metrics.trial_error_rate).toMatchObject({ numerator: 2, denominator: 3 });
    expect(summary.expectations.goals).toMatchObject({ n_items: 2, n_items_judged: 1, n_trials_judged: 1 });
    // The one decided trial: db-01's traced run, escalated after two rounds with two critic calls.
    expect(summary.operational.escalations_per_100_goals).toMatchObject({ value: 100, n_trials: 1 });
    expect(summary.operational["llm_calls_per_decided_goal.critic"]).toMatchObject({ value: 2, n_trials: 1 });
    expect(summary.operational.revisions_median).toMatchObject({ value: 1, n_trials: 1 });
  });

  it("are counted in the CLI's summary line", async () => {
    const r = await fieldtest(
      "import",
      "planner-critic",
      join(UNTRACED, "reports"),
      "--goals",
      join(UNTRACED, "goals"),
      "--out",
      join(tempDir("untraced-cli"), "runs"),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^imported 6 trials of 2 goals into 2 runs: 19 of 19 logged calls in trials \(9 calls in 4 trials whose outcome no trace records\); /,
    );
  });
});

describe("logs that no trial can take", () => {
  it("make a run of their own when no trace of their dimension ran in the group, and a log outside any dimension is named and counted", () => {
    const root = tempDir("untraced-tree");
    const reports = join(root, "reports");
    writeTreeGoals(join(root, "goals"), [{ id: "db-01", risk: "strict", approve: false }]);
    writeSweepReport(join(reports, "0.1.0/full-sweep"), "deterministic-first", 1);
    const at = "2026-08-19T10:00:00Z";
    writeTreeRun(reports, {
      dir: "0.1.0/full-sweep/core-api/db-01",
      goalId: "db-01",
      dimension: "core-api",
      critic: "severity",
      at,
      status: "escalated",
      reason: "revision_cap_reached",
    });
    const cut = {
      dir: "0.1.0/full-sweep/critique-modes/db-01/heuristic-only",
      goalId: "db-01",
      dimension: "critique-heuristic-only",
      critic: null,
      at,
      status: "error",
      reason: null,
    } as const;
    writeTreeRun(reports, cut);
    rmSync(join(reports, cut.dir, "trace.json"));
    // A store-dimension folder never ran the engine: its log has no run to join.
    writeTreeRun(reports, { ...cut, dir: "0.1.0/full-sweep/store/db-01" });
    rmSync(join(reports, "0.1.0/full-sweep/store/db-01/trace.json"));
    const r = importInto(reports, join(root, "goals"), join(root, "runs"));
    expect(r.runs.map((x) => [x.name, x.trials.map((t) => t.status)])).toEqual([
      ["0.1.0/full-sweep/core-api", ["escalated"]],
      ["0.1.0/full-sweep/critique-modes/heuristic-only", ["error"]],
    ]);
    expect(r.runs[1]!.source).toMatchObject({ mode: "gates-only", max_rounds: 3 });
    expect(r.calls).toEqual({ logged: 4, imported: 3, untraced: 1, untraced_trials: 1, unplaced: 1 });
    expect(r.problems).toEqual([
      {
        file: join(reports, "0.1.0/full-sweep/store/db-01/llm-logs/db-01_planner_llm_log.jsonl"),
        where: "(file)",
        detail: "1 logged call(s) that no trial took: not imported",
      },
    ]);
  });

  it("split a shared log's earlier runs among its variants too, and leave a run that does not split to an input problem", () => {
    const root = tempDir("untraced-shared");
    cpSync(join(CASES, "goals"), join(root, "goals"), { recursive: true });
    const replan = join(root, "reports/0.1.0/full-sweep/replan/db-01-schema-migration");
    cpSync(join(CASES, "reports/0.1.0/full-sweep/replan/db-01-schema-migration"), replan, { recursive: true });
    const log = join(replan, "llm-logs/db-01-schema-migration_planner_llm_log.jsonl");
    const text = readFileSync(log, "utf8");
    const entries = parseLog(log, text, "planner").entries;
    // Run 1: the three policies' engine runs; run 2: a patch run cut after its two calls; run 3: the traced one.
    const firstTwo = entries
      .slice(0, 2)
      .map((e) => `${JSON.stringify(e, null, 2)}\n`)
      .join("");
    writeFileSync(log, text + firstTwo + text);
    const r = importInto(join(root, "reports"), join(root, "goals"), join(root, "runs"));
    expect(r.runs.map((x) => [x.name, x.trials.map((t) => `${t.trial}:${t.status}:${t.calls.length}`)])).toEqual([
      ["0.1.0/full-sweep/replan/abort", ["0:error:1", "1:escalated:1"]],
      ["0.1.0/full-sweep/replan/patch", ["0:error:2", "1:escalated:2"]],
      ["0.1.0/full-sweep/replan/restart", ["0:error:2", "1:escalated:2"]],
    ]);
    expect(r.calls).toEqual({ logged: 12, imported: 10, untraced: 5, untraced_trials: 3, unplaced: 2 });
    expect(r.problems.map((p) => p.detail)).toEqual([
      "shared by 3 traces (replan/patch, replan/restart, replan/abort) but its run 2 of 3 holds 1 engine run(s) (each begins with a decompose call): not split, its 2 call(s) are not imported",
    ]);
    const patch = r.runs.find((x) => x.name === "0.1.0/full-sweep/replan/patch")!.trials;
    expect(patch.map((t) => t.conversion.unmatched_log_calls)).toEqual([0, 2]);
    expect(patch[1]!.conversion.notes).toContainEqual(
      expect.objectContaining({ subject: "llm-logs", detail: expect.stringMatching(/^the logs hold 7 engine runs of this goal; trace.json records run 5 /) }),
    );
  });
});
