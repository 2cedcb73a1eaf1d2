import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importPlannerCritic, type ImportResult } from "../../harness/import/planner-critic/run.ts";
import { readTrials } from "../../harness/run/store.ts";
import { removeTempDirs, tempDir } from "./fixtures.ts";

/** Upstream artefacts the import used to drop or misread (test/fixtures/planner-critic-0.1.0-cases/README.md). */
const CASES = fileURLToPath(new URL("../fixtures/planner-critic-0.1.0-cases", import.meta.url));

let result: ImportResult;
const trialsOf = (name: string) => readTrials(result.runs.find((r) => r.name === name)!.dir);
const userPrompt = (c: { messages?: { role: string; content: string }[] }) => c.messages!.find((m) => m.role === "user")!.content;

beforeAll(() => {
  result = importPlannerCritic({
    reportsDir: join(CASES, "reports"),
    goalsDir: join(CASES, "goals"),
    out: join(tempDir("cases"), "runs"),
    force: false,
    runId: "cases",
    command: ["fieldtest", "import", "planner-critic"],
    now: () => new Date("2026-12-04T12:00:00Z"),
  });
});

afterAll(removeTempDirs);

describe("importing the upstream cases", () => {
  it("imports the adversarial goal whose assertions write max_revisions: null, and every engine trace", () => {
    expect(result.problems).toEqual([]);
    expect(result.goals).toBe(2);
    expect(result.runs.map((r) => [r.name, r.trials.length])).toEqual([
      ["0.1.0/full-sweep/core-api", 2],
      ["0.1.0/full-sweep/replan/abort", 1],
      ["0.1.0/full-sweep/replan/patch", 1],
      ["0.1.0/full-sweep/replan/restart", 1],
    ]);
    const [adv] = trialsOf("0.1.0/full-sweep/core-api");
    expect(adv!.item_id).toBe("adv-01-billing-no-safety");
    expect(adv!.status).toBe("escalated");
    // null asks for nothing, so nothing is lost: no note on it.
    expect(adv!.conversion!.notes.filter((n) => n.subject.includes("max_revisions"))).toEqual([]);
  });

  it("takes the run the trace records (the first; the second was cut short) and imports the other as its own trial", () => {
    // adv-01: two planner calls (two runs) and one critic call; the replan log: five planner calls.
    expect(result.calls).toEqual({ logged: 8, imported: 8, untraced: 1, untraced_trials: 1, unplaced: 0 });
    const [adv, cut] = trialsOf("0.1.0/full-sweep/core-api");
    expect([cut!.trial, cut!.status, cut!.error, cut!.calls.map((c) => c.logged_at)]).toEqual([
      1,
      "error",
      "outcome not recorded: no trace.json records this engine run; the run left no trace",
      ["2026-08-20T02:01:45Z"],
    ]);
    expect(adv!.calls.map((c) => [c.role, c.logged_at])).toEqual([
      ["planner", "2026-08-20T01:50:58Z"],
      ["critic", "2026-08-20T01:51:10Z"],
    ]);
    expect(adv!.conversion!.notes).toContainEqual(
      expect.objectContaining({
        kind: "derived",
        subject: "llm-logs",
        detail: expect.stringMatching(/^the logs hold 2 engine runs of this goal; trace.json records run 1 /),
      }),
    );
  });

  it("splits the replan policies' shared log into their runs, in the order they ran", () => {
    const policyOf = (name: string) => trialsOf(`0.1.0/full-sweep/replan/${name}`)[0]!;
    const firstPrompt = (name: string) => userPrompt(policyOf(name).calls[0]!);
    expect(["patch", "restart", "abort"].map((p) => policyOf(p).calls.length)).toEqual([2, 2, 1]);
    for (const p of ["patch", "restart", "abort"]) expect(firstPrompt(p)).toContain(`'replan_policy': '${p}'`);
    expect(policyOf("abort").escalation_reason).toBe("replan_aborted");
  });

  it("sets aside the gate findings on the synthetic verify tasks: listed in the round, never a blocker", () => {
    const rounds = result.runs.flatMap((r) => readTrials(r.dir)).flatMap((t) => t.rounds);
    const invented = rounds.flatMap((r) => r.translated!.tasks);
    expect(invented.length).toBeGreaterThan(0);
    expect(invented.every((id) => id.endsWith(".verify"))).toBe(true);
    const setAside = rounds.flatMap((r) => r.translated!.gate_findings);
    expect(setAside.map((f) => f.code)).toContain("verification_ignores_output");
    for (const r of rounds) {
      const mine = new Set(r.translated!.tasks);
      expect(r.gate_findings.filter((f) => f.task_id !== null && mine.has(f.task_id))).toEqual([]);
      expect(r.translated!.gate_findings.every((f) => mine.has(f.task_id!))).toBe(true);
      expect(r.blocker_keys.filter((k) => r.translated!.gate_findings.some((f) => f.key === k))).toEqual([]);
    }
  });
});
