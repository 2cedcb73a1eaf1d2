import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { splitConcatenatedJson } from "../../harness/import/planner-critic/concatenated-json.ts";
import { lastRun, parseLog, splitRuns } from "../../harness/import/planner-critic/logs.ts";
import { IMPORT_FILES, importPlannerCritic } from "../../harness/import/planner-critic/run.ts";
import { readTrials } from "../../harness/run/store.ts";
import { HAND_GOAL, logEntry, logText, predecessorPlan, predecessorTask, tempDir, trace, writeFieldTest, removeTempDirs } from "./fixtures.ts";

const plan = predecessorPlan([predecessorTask("take_backup"), predecessorTask("migrate_db")], [["take_backup", "migrate_db"]]);
const clean = { findings: [] };

/** Two engine runs appended to the same logs (call restarts at 1), the second crashed mid-write. */
const firstRun = [
  logEntry({ call: 1, role: "planner", timestamp: "2026-08-20T10:00:05Z", duration_seconds: 4, response: plan }),
  logEntry({ call: 2, role: "planner", timestamp: "2026-08-20T10:00:12Z", duration_seconds: 3, response: plan }),
];
const secondRun = [logEntry({ call: 1, role: "planner", timestamp: "2026-08-20T11:00:05Z", duration_seconds: 2.5, response: plan })];
const torn = JSON.stringify(logEntry({ call: 2, role: "planner", timestamp: "2026-08-20T11:00:09Z", duration_seconds: 1, response: plan }), null, 2).slice(0, 200);
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
    const run = lastRun(planner, critic);
    expect(run.calls.map((e) => `${e.role}:${e.timestamp}`)).toEqual(["planner:2026-08-20T11:00:05Z", "critic:2026-08-20T11:00:08Z"]);
    expect(run.unmatched.map((r) => r.length)).toEqual([2, 1]);
  });

  it("reports an object that is not a log entry and keeps reading", () => {
    const text = logText([{ call: "one", role: "planner" }, secondRun[0]!]);
    const log = parseLog("p.jsonl", text, "planner");
    expect(log.entries).toHaveLength(1);
    expect(log.problems).toEqual([{ file: "p.jsonl", where: "line 1: call", detail: expect.stringMatching(/number/) }]);
  });

  it("imports the last run of such a log as the trial and keeps the earlier calls as superseded", () => {
    const root = tempDir("logs");
    const dirs = writeFieldTest(root, {
      goal: HAND_GOAL,
      trace: trace(plan, { status: "approved", reason_code: "approved", revision_count: 1, llm_calls: 0 }),
      planner: plannerText,
    });
    const out = join(root, "run");
    // --strict: the torn log is bad input, named, and nothing is written.
    const strict = join(root, "strict");
    expect(() => importPlannerCritic({ reportsDir: dirs.reports, goalsDir: dirs.goals, out: strict, force: false, strict: true, runId: "r", command: [], now: () => new Date() })).toThrow(
      /_llm_log\.jsonl: .*torn object.*; --strict imports nothing while an input is broken$/,
    );
    expect(existsSync(strict)).toBe(false);
    const result = importPlannerCritic({ reportsDir: dirs.reports, goalsDir: dirs.goals, out, force: false, runId: "r", command: [], now: () => new Date() });
    expect(result.problems.map((p) => p.detail)).toEqual([expect.stringMatching(/^torn object/)]);
    // Every valid logged call is accounted for: the last run in the trial, the earlier one kept verbatim.
    expect(result.calls).toEqual({ logged: 3, imported: 1, superseded: 2, unclaimed: 0 });
    const run = result.runs[0]!;
    const kept = readFileSync(join(run.dir, IMPORT_FILES.superseded), "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(kept.map((k) => [k.item_id, k.entry.call, k.entry.timestamp])).toEqual([
      ["hand-01", 1, "2026-08-20T10:00:05Z"],
      ["hand-01", 2, "2026-08-20T10:00:12Z"],
    ]);
    const [trial] = readTrials(run.dir);
    expect(trial!.calls.map((c) => [c.role, c.round, c.latency_ms])).toEqual([["planner", 0, 2500]]);
    expect(trial!.rounds).toHaveLength(1);
    const conversion = (trial as unknown as { conversion: { unmatched_log_calls: number; notes: { subject: string }[] } }).conversion;
    expect(conversion.unmatched_log_calls).toBe(2);
    expect(conversion.notes.map((n) => n.subject)).toContain("critic log");
  });
});
