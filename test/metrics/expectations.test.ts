import { describe, expect, it } from "vitest";
import { summarize } from "../../src/metrics/summary.ts";
import { boundaryTrial, engineTrial, finding, fixture, gateFinding, goal, plan } from "./builders.ts";
import type { TrialRecord } from "../../src/formats/records.ts";
import type { Fixture } from "../../src/formats/fixture.ts";
import type { CorpusGoal } from "../../src/formats/goal.ts";

const run = (trials: TrialRecord[], fixtures: Fixture[], goals: CorpusGoal[]) => summarize({ trials, fixtures, goals }, { seed: 2, bootstrapReps: 50 });

describe("corpus goal expectations", () => {
  const finalPlan = plan(
    [
      { id: "snapshot_db", description: "Take a snapshot", kind: "read" },
      { id: "cutover", description: "Switch traffic", kind: "mutate" },
    ],
    "g",
  );
  const g = goal("g", {
    verdict: "escalate",
    escalation_reasons: ["revision_cap_reached"],
    min_tasks: 2,
    mandatory_elements: ["Snapshot", "verify"],
    forbidden_blocker_families: ["weak_rollback"],
  });
  const rollbackBlocker = gateFinding("rollback_missing", "cutover");
  const trials = [
    engineTrial("g", 0, "escalated", { rounds: [{ plan: finalPlan }] }),
    engineTrial("g", 1, "approved", { rounds: [{ plan: finalPlan }] }),
    engineTrial("g", 2, "escalated", {
      reasons: ["converged_stalled"],
      rounds: [{ plan: finalPlan, gateFindings: [rollbackBlocker], blockerKeys: [rollbackBlocker.key] }],
    }),
    engineTrial("g", 3, "error"),
  ];
  const report = run(trials, [], [g]).expectations.goals;

  it("judges every check per trial and names each failure", () => {
    const [t0, t1, t2, t3] = report.items[0]!.trials;
    expect(t0!.failures).toEqual(['mandatory_element:verify: no task id or description contains "verify"']);
    expect(t1!.failures.map((f) => f.split(":")[0])).toEqual(["verdict", "mandatory_element"]);
    expect(t2!.failures.map((f) => f.split(":")[0])).toEqual(["escalation_reasons", "mandatory_element", "forbidden_blocker_families"]);
    expect(t3).toMatchObject({ judged: false, pass: null });
  });
  it("lists the failing item by id with counts per check", () => {
    expect(report).toMatchObject({ n_items: 1, n_items_failed: 1, failing_items: ["g"], n_trials_judged: 3, n_trials_failed: 3 });
    expect(report.items[0]!.failed_checks).toEqual({
      "mandatory_element:verify": 3,
      verdict: 1,
      escalation_reasons: 1,
      forbidden_blocker_families: 1,
    });
  });
});

describe("boundary fixture ground truth", () => {
  const f = fixture("f", {
    defects: [{ task: "a", family: "weak_rollback", claim: "missing_rollback" }],
    expectedGate: [{ code: "rollback_missing", task_id: "a" }],
  });
  const gate = [gateFinding("rollback_missing", "a")];
  const right = finding({ family: "weak_rollback", claim: "missing_rollback" });

  it("passes a trial with the expected gate findings, verdict and seeded claim", () => {
    const r = run([boundaryTrial("f", 0, "block", { gateFindings: gate, findings: [right] })], [f], []).expectations.fixtures;
    expect(r).toMatchObject({ n_items_failed: 0, failing_items: [], n_trials_judged: 1 });
  });
  it("fails a trial that misses the claim, approves, or whose gates drifted", () => {
    const trials = [
      boundaryTrial("f", 0, "block", { gateFindings: gate, findings: [finding({ family: "risk", claim: "missing_rollback" })] }),
      boundaryTrial("f", 1, "pass", { gateFindings: [], findings: [right], verdict: "approve" }),
    ];
    const r = run(trials, [f], []).expectations.fixtures;
    expect(r.failing_items).toEqual(["f"]);
    expect(r.items[0]!.failed_checks).toEqual({ "seeded_defect:a:weak_rollback": 1, gate_findings: 1, verdict: 1 });
  });
  it("judges only the gates when the critic was unavailable", () => {
    const r = run([boundaryTrial("f", 0, "unavailable", { gateFindings: gate })], [f], []).expectations.fixtures;
    expect(r.items[0]!.trials[0]).toMatchObject({ judged: true, pass: true, reason: expect.stringContaining("critic_unavailable") });
  });
});
