import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importPlannerCritic } from "../../harness/import/planner-critic/run.ts";
import { readTrials } from "../../harness/run/store.ts";
import { HAND_GOAL, logEntry, logText, predecessorPlan, predecessorTask, tempDir, trace, writeFieldTest, removeTempDirs } from "./fixtures.ts";

/**
 * A hand-built predecessor run whose critic makes two ordering claims in prose: deploy_app is
 * listed before take_backup although it needs it (the plan violates the claim's premise: it
 * holds), and migrate_db "before" take_backup although take_backup already runs first (the plan
 * refutes it). The import must check both against the plan, not take the critic's word.
 */
describe("imported ordering claims are checked against the plan", () => {
  afterAll(removeTempDirs);
  const plan = predecessorPlan(
    [predecessorTask("deploy_app"), predecessorTask("take_backup"), predecessorTask("migrate_db")],
    [
      ["take_backup", "deploy_app"],
      ["take_backup", "migrate_db"],
    ],
  );
  const critique = {
    findings: [
      {
        heuristic_family: "unsafe_sequencing",
        severity: "blocker",
        task_id: "deploy_app",
        message: "deploy_app runs before take_backup, its hard prerequisite.",
        suggested_fix: null,
      },
      {
        heuristic_family: "unsafe_sequencing",
        severity: "blocker",
        task_id: "migrate_db",
        message: "Migrate db is scheduled before the take backup task.",
        suggested_fix: null,
      },
      { heuristic_family: "risk", severity: "warning", task_id: "migrate_db", message: "Large tables may lock.", suggested_fix: null },
    ],
  };

  let imported: { result: ReturnType<typeof importPlannerCritic>; out: string };
  beforeAll(() => {
    imported = importHandRun();
  });

  function importHandRun() {
    const root = tempDir("ordering");
    const dirs = writeFieldTest(root, {
      goal: HAND_GOAL,
      assertions: "invariants:\n  approve_expected: false\n",
      trace: trace(plan, { status: "escalated", reason_code: "revision_cap_reached", revision_count: 1, llm_calls: 1 }),
      planner: logText([logEntry({ call: 1, role: "planner", timestamp: "2026-08-20T10:00:05Z", duration_seconds: 4.2, response: plan })]),
      critic: logText([logEntry({ call: 1, role: "critic", timestamp: "2026-08-20T10:00:07Z", duration_seconds: 1.5, response: critique })]),
    });
    const out = join(root, "run");
    const result = importPlannerCritic({
      reportsDir: dirs.reports,
      goalsDir: dirs.goals,
      out,
      force: false,
      runId: "test-run",
      command: ["fieldtest", "import"],
      now: () => new Date("2026-12-02T12:00:00Z"),
    });
    return { result, out: result.runs[0]!.dir };
  }

  it("marks the violated claim supported and the satisfied one contradicted", () => {
    const { result, out } = imported;
    expect(result.problems).toEqual([]);
    const [trial] = readTrials(out);
    const findings = trial!.rounds[0]!.critic!.findings;
    expect(findings.map((f) => [f.task_id, f.evidence?.claim ?? null, f.evidence?.tasks ?? null, f.evidence_status])).toEqual([
      ["deploy_app", "misordered", ["deploy_app", "take_backup"], "supported"],
      ["migrate_db", "misordered", ["migrate_db", "take_backup"], "contradicted"],
      ["migrate_db", null, null, "uncheckable"],
    ]);
  });

  it("lets the supported blocker block and downgrades the contradicted one", () => {
    const { out } = imported;
    const round = readTrials(out)[0]!.rounds[0]!;
    const [supported, contradicted] = round.critic!.findings;
    expect(supported!.severity).toBe("blocker");
    expect(contradicted!.severity).toBe("warning");
    expect(contradicted!.normalization).toEqual(["downgraded_evidence_rejected"]);
    expect(round.blocker_keys).toContain(supported!.key);
    expect(round.blocker_keys).not.toContain(contradicted!.key);
    // The gates see the same violation on their own, without reading prose.
    expect(round.gate_findings.map((f) => [f.code, f.task_id])).toContainEqual(["order_violates_dependency", "deploy_app"]);
  });
});
