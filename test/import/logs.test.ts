import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { splitConcatenatedJson } from "../../harness/import/planner-critic/concatenated-json.ts";
import { convertGoal } from "../../harness/import/planner-critic/goal.ts";
import {
  interleave,
  loggedRuns,
  matchRun,
  parseLog,
  recordedRunIndex,
  splitEngineRuns,
  splitRuns,
  type MatchedRun,
} from "../../harness/import/planner-critic/logs.ts";
import { LogEntrySchema, PredecessorGoalSchema, TraceSchema } from "../../harness/import/planner-critic/schema.ts";
import { buildTrial } from "../../harness/import/planner-critic/trial.ts";
import { importPlannerCritic } from "../../harness/import/planner-critic/run.ts";
import { readTrials } from "../../harness/run/store.ts";
import { HAND_GOAL, logEntry, logText, predecessorPlan, predecessorTask, tempDir, trace, writeFieldTest, removeTempDirs } from "./fixtures.ts";

function handGoal() {
  const converted = convertGoal(PredecessorGoalSchema.parse(HAND_GOAL), null, { domain: "database" });
  if (typeof converted === "string") throw new Error(converted);
  return converted.goal;
}

const plan = predecessorPlan([predecessorTask("take_backup"), predecessorTask("migrate_db")], [["take_backup", "migrate_db"]]);
const clean = { findings: [] };

/** Two engine runs appended to the same logs (call restarts at 1), the second crashed mid-write. */
const firstRun = [
  logEntry({ call: 1, role: "planner", timestamp: "2026-08-20T10:00:05Z", duration_seconds: 4, response: plan }),
  logEntry({ call: 2, role: "planner", timestamp: "2026-08-20T10:00:12Z", duration_seconds: 3, response: plan }),
];
const secondRun = [logEntry({ call: 1, role: "planner", timestamp: "2026-08-20T11:00:05Z", duration_seconds: 2.5, response: plan })];
const torn = JSON.stringify(logEntry({ call: 2, role: "planner", timestamp: "2026-08-20T11:00:09Z", duration_seconds: 1, response: plan }), null, 2).slice(
  0,
  200,
);
const plannerText = logText([...firstRun, ...secondRun]) + torn;

describe("reading a predecessor LLM log", () => {
  afterAll(removeTempDirs);
  it("reads pretty-printed objects back to back and reports a torn last object without losing the others", () => {
    const split = splitConcatenatedJson(plannerText);
    expect(split.values).toHaveLength(3);
    expect(split.problems).toEqual([{ line: expect.any(Number), kind: "torn", detail: "the file ends inside this object" }]);
    const log = parseLog("planner.jsonl", plannerText, "planner");
    expect(log.entries.map((e) => [e.call, e.timestamp])).toEqual([
      [1, "2026-08-20T10:00:05Z"],
      [2, "2026-08-20T10:00:12Z"],
      [1, "2026-08-20T11:00:05Z"],
    ]);
    expect(log.problems).toHaveLength(1);
    expect(log.problems[0]!.detail).toMatch(/^torn object/);
  });

  it("recovers after an object torn by a crash when a rerun appended after it", () => {
    const split = splitConcatenatedJson(logText(firstRun) + torn + "\n" + logText(secondRun));
    expect(split.values.map((v) => (v.value as { call: number }).call)).toEqual([1, 2, 1]);
    expect(split.problems.map((p) => p.kind)).toEqual(["malformed"]);
  });

  it("splits runs where call restarts and keeps the last one, with the critic run that followed it", () => {
    const planner = parseLog("p", plannerText, "planner").entries;
    expect(splitRuns(planner).map((r) => r.map((e) => e.call))).toEqual([[1, 2], [1]]);
    const critic = parseLog(
      "c",
      logText([
        logEntry({ call: 1, role: "critic", timestamp: "2026-08-20T10:00:15Z", duration_seconds: 2, response: clean }),
        logEntry({ call: 1, role: "critic", timestamp: "2026-08-20T11:00:08Z", duration_seconds: 2, response: clean }),
      ]),
      "critic",
    ).entries;
    const { runs, recorded } = matchRun(planner, critic, { revisions: null, criticCalls: null, durationSeconds: null });
    expect(runs[recorded]!.calls.map((e) => `${e.role}:${e.timestamp}`)).toEqual(["planner:2026-08-20T11:00:05Z", "critic:2026-08-20T11:00:08Z"]);
    // The earlier run keeps its planner and critic calls together, in the order they ran.
    expect(runs.map((r) => r.calls.map((e) => `${e.role[0]}${e.call}`))).toEqual([
      ["p1", "p2", "c1"],
      ["p1", "c1"],
    ]);
  });

  it("reports an object that is not a log entry and keeps reading", () => {
    const text = logText([{ call: "one", role: "planner" }, secondRun[0]!]);
    const log = parseLog("p.jsonl", text, "planner");
    expect(log.entries).toHaveLength(1);
    expect(log.problems).toEqual([{ file: "p.jsonl", where: "line 1: call", detail: expect.stringMatching(/number/) }]);
  });

  it("imports the last run of such a log as the trace's trial and the earlier run as a trial whose outcome no trace records", () => {
    const root = tempDir("logs");
    const dirs = writeFieldTest(root, {
      goal: HAND_GOAL,
      trace: trace(plan, { status: "approved", reason_code: "approved", revision_count: 1, llm_calls: 0 }),
      planner: plannerText,
    });
    const out = join(root, "run");
    // --strict: the torn log is bad input, named, and nothing is written.
    const strict = join(root, "strict");
    expect(() =>
      importPlannerCritic({
        reportsDir: dirs.reports,
        goalsDir: dirs.goals,
        out: strict,
        force: false,
        strict: true,
        runId: "r",
        command: [],
        now: () => new Date(),
      }),
    ).toThrow(/_llm_log\.jsonl: .*torn object.*; --strict imports nothing while an input is broken$/);
    expect(existsSync(strict)).toBe(false);
    const result = importPlannerCritic({ reportsDir: dirs.reports, goalsDir: dirs.goals, out, force: false, runId: "r", command: [], now: () => new Date() });
    expect(result.problems.map((p) => p.detail)).toEqual([expect.stringMatching(/^torn object/)]);
    // Every valid logged call is in a trial: the last run in the trace's, the earlier one in its own.
    expect(result.calls).toEqual({ logged: 3, imported: 3, untraced: 2, untraced_trials: 1, unplaced: 0 });
    const run = result.runs[0]!;
    const [earlier, trial] = readTrials(run.dir);
    expect(earlier!.calls.map((c) => [c.role, c.logged_at])).toEqual([
      ["planner", "2026-08-20T10:00:05Z"],
      ["planner", "2026-08-20T10:00:12Z"],
    ]);
    expect([earlier!.trial, earlier!.status, earlier!.conversion!.source.trace]).toEqual([0, "error", null]);
    expect(trial!.trial).toBe(1);
    expect(trial!.calls.map((c) => [c.role, c.round, c.latency_ms])).toEqual([["planner", 0, 2500]]);
    expect(trial!.rounds).toHaveLength(1);
    const conversion = trial!.conversion!;
    expect(conversion.unmatched_log_calls).toBe(0);
    expect(conversion.notes.map((n) => n.subject)).toContain("critic log");
  });
});

/** The prompts the predecessor sent: a decompose names the goal, a revision and an audit name the plan they work on. */
const GOAL_PROMPT = "GOAL:\n{'id': 'hand-01', 'description': 'Migrate the orders database behind a backup'}\n\nProduce the PlanVersion JSON now. version=1.";
const planPrompt = (version: number) =>
  `PLAN:\n{'id': 'plan-hand-01-r${version}', 'goal_id': 'hand-01', 'plan_schema_version': '0.1.0', 'version': ${version}, 'parent_version': None, 'tasks': []}\n\nFINDINGS:\n[]`;

describe("ordering a fast server's calls", () => {
  // Every call returned within one second: the log's timestamps tie, and a start derived from a duration would reorder them.
  const second = "2026-08-20T10:00:05Z";
  const planner = [
    logEntry({ call: 1, role: "planner", timestamp: second, duration_seconds: 0.04, response: plan, user: GOAL_PROMPT }),
    logEntry({ call: 2, role: "planner", timestamp: second, duration_seconds: 0.05, response: plan, user: planPrompt(1) }),
    logEntry({ call: 3, role: "planner", timestamp: second, duration_seconds: 0.05, response: plan, user: planPrompt(2) }),
  ];
  // Round 0's plan was blocked by the predecessor's gates (no audit); rounds 1 and 2 were audited.
  const critic = [
    logEntry({ call: 1, role: "critic", timestamp: second, duration_seconds: 0.01, response: clean, user: planPrompt(2) }),
    logEntry({ call: 2, role: "critic", timestamp: second, duration_seconds: 0.01, response: clean, user: planPrompt(3) }),
  ];
  const order = (calls: { role: string; call: number }[]) => calls.map((e) => `${e.role[0]}${e.call}`).join(" ");
  const parsed = (entries: Record<string, unknown>[], role: "planner" | "critic") => parseLog(role, logText(entries), role).entries;

  it("orders tied calls by the plan each prompt carries: drafted, reviewed, then revised", () => {
    expect(order(interleave(parsed(planner, "planner"), parsed(critic, "critic")))).toBe("p1 p2 c1 p3 c2");
  });

  /** The same calls with prompts that carry no plan. */
  const bare = (entries: Record<string, unknown>[], role: "planner" | "critic") =>
    parsed(
      entries.map((e) => ({ ...e, prompt_messages: [{ role: "user", content: "plan it" }] })),
      role,
    );
  /** A trial of the hand goal from these calls, its trace recording the counts given. */
  const tiedTrial = (run: MatchedRun, revision_count: number, llm_calls: number) =>
    buildTrial({
      goal: handGoal(),
      goal_notes: [],
      item_hash: "h",
      trial: 0,
      trace: TraceSchema.parse(trace(undefined, { status: "approved", reason_code: "approved", revision_count, llm_calls })),
      run,
      unplaced: 0,
      source: { trace: "trace.json", planner_log: "p.jsonl", critic_log: "c.jsonl" },
      fallback_time: second,
    });

  it("orders tied calls whose prompts carry no plan by the logs' line order", () => {
    expect(order(interleave(bare(planner.slice(0, 2), "planner"), bare(critic, "critic")))).toBe("p1 c1 p2 c2");
  });

  it("keeps every round's audit of a tied run, with no inconsistency noted", () => {
    const { runs } = matchRun(parsed(planner, "planner"), parsed(critic, "critic"), { revisions: 3, criticCalls: 2, durationSeconds: 0.2 });
    const trial = tiedTrial(runs[0]!, 3, 2);
    expect(trial.rounds.map((r) => r.critic === null)).toEqual([true, false, false]);
    expect(trial.calls.map((c) => `${c.role[0]}${c.round}`)).toEqual(["p0", "p1", "c1", "p2", "c2"]);
    expect(trial.conversion.notes.filter((n) => n.kind === "inconsistent")).toEqual([]);
  });

  it("says what disagrees when two accepted audits fall in one round, and how the logged calls fall", () => {
    // Without the plans in the prompts and with the critic's calls numbered past the planner's, the line order puts both audits after the last plan.
    const late = critic.map((e, i) => ({ ...e, call: 3 + i }));
    const trial = tiedTrial({ calls: interleave(bare(planner.slice(0, 2), "planner"), bare(late, "critic")), position: null }, 2, 2);
    const inconsistent = trial.conversion.notes.filter((n) => n.kind === "inconsistent");
    expect(inconsistent.map((n) => n.subject)).toEqual(["rounds[1].critic", "trace.result.llm_calls"]);
    expect(inconsistent[0]!.detail).toMatch(/^two accepted critic answers fall in round 1 \(logged at 2026-08-20T10:00:05Z and 2026-08-20T10:00:05Z\)/);
    expect(inconsistent[1]!.detail).toBe(
      "2 critic invocations recorded, 1 round(s) with a logged critic call (1): the critic log holds 2 call(s) of this run (round 1: 2)",
    );
  });
});

describe("the run a trace records", () => {
  const at = (s: number) => new Date(Date.parse("2026-08-20T10:00:00Z") + s * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const p = (call: number, s: number, d: number) =>
    LogEntrySchema.parse(logEntry({ call, role: "planner", timestamp: at(s), duration_seconds: d, response: plan }));
  const c = (call: number, s: number, d: number) =>
    LogEntrySchema.parse(logEntry({ call, role: "critic", timestamp: at(s), duration_seconds: d, response: clean }));
  // Run 1: three rounds, three audits, 51 s. Run 2 (ten minutes on): one planner call, then killed before it wrote a trace.
  const planner = [p(1, 12, 12), p(2, 30, 13), p(3, 49, 16), p(1, 612, 9)];
  const critic = [c(1, 16, 4), c(2, 32, 2), c(3, 51, 2)];

  it("is the one whose recorded rounds, critic calls and duration agree, not the last in the logs", () => {
    const runs = loggedRuns(planner, critic);
    expect(runs.map((r) => [r.planner.length, r.critic.length])).toEqual([
      [3, 3],
      [1, 0],
    ]);
    expect(recordedRunIndex(runs, { revisions: 3, criticCalls: 3, durationSeconds: 51.25 })).toBe(0);
    // A trace of one round without an audit is the interrupted run's shape.
    expect(recordedRunIndex(runs, { revisions: 1, criticCalls: 0, durationSeconds: 9.7 })).toBe(1);
    // Retries stand within the counts; without any recorded count the duration decides, then the latest.
    expect(recordedRunIndex(runs, { revisions: 2, criticCalls: 2, durationSeconds: null })).toBe(0);
    expect(recordedRunIndex(runs, { revisions: null, criticCalls: null, durationSeconds: 10 })).toBe(1);
    expect(recordedRunIndex(runs, { revisions: null, criticCalls: null, durationSeconds: null })).toBe(1);
    const matched = matchRun(planner, critic, { revisions: 3, criticCalls: 3, durationSeconds: 51.25 });
    expect(matched.recorded).toBe(0);
    expect(matched.runs[0]!.calls.map((e) => `${e.role[0]}${e.call}`)).toEqual(["p1", "c1", "p2", "c2", "p3", "c3"]);
    expect(matched.runs[1]!.calls).toEqual([planner[3]]);
    expect(matched.runs.map((r) => r.position)).toMatchObject([
      { index: 0, of: 2 },
      { index: 1, of: 2 },
    ]);
  });

  it("splits a log several variants shared into engine runs at each decompose, a retried decompose staying in its run", () => {
    const g = (call: number, response: unknown) =>
      LogEntrySchema.parse(logEntry({ call, role: "planner", timestamp: at(call), duration_seconds: 1, response, user: GOAL_PROMPT }));
    const r = (call: number) =>
      LogEntrySchema.parse(logEntry({ call, role: "planner", timestamp: at(call), duration_seconds: 1, response: plan, user: planPrompt(1) }));
    const calls = [g(1, plan), r(2), g(3, "{not json"), g(4, plan), r(5), g(6, plan)];
    const runs = splitEngineRuns(calls, (e) => e.response_content !== "{not json");
    expect(runs.map((run) => run.map((e) => e.call))).toEqual([[1, 2], [3, 4, 5], [6]]);
  });
});
