import { describe, expect, it } from "vitest";
import { convertGoal } from "../../harness/import/planner-critic/goal.ts";
import { convertPlan } from "../../harness/import/planner-critic/plan.ts";
import { AssertionsSchema, PredecessorGoalSchema, PredecessorPlanSchema } from "../../harness/import/planner-critic/schema.ts";
import { PlanSchema } from "../../src/formats/plan.ts";
import { runGates } from "../../src/gates/index.ts";
import { makeGoal } from "../helpers/plans.ts";
import { HAND_GOAL, predecessorPlan, predecessorTask } from "./fixtures.ts";

const verification = { what: "row counts", how: "count rows", expected: "equal" };
const rollback = { trigger: "counts differ", action: "restore snapshot", safety_guard: "keep the snapshot" };

describe("plan conversion", () => {
  const source = PredecessorPlanSchema.parse(
    predecessorPlan(
      [
        predecessorTask("take_backup", { preconditions: [{ description: "db up", fact: "db_up", established_by: "infra", probe: null }] }),
        predecessorTask("copy_a", { parallel_group: "copy", verification, rollback, risk_class: "high" }),
        predecessorTask("copy_b", { parallel_group: "copy", blast_radius: "High" }),
        predecessorTask("switch", {
          preconditions: [{ description: "copied", fact: "copied", established_by: "copy_a", probe: null }],
          rollback,
          blast_radius: "huge",
        }),
      ],
      [["take_backup", "copy_a"]],
    ),
  );
  const { plan, notes, originalTaskIds } = convertPlan(source);

  it("gives a docs/design.md §3 plan: synthetic checks after their parallel group, establishes from established_by, env aliases", () => {
    expect(PlanSchema.parse(plan)).toEqual(plan);
    expect(plan.tasks.map((t) => t.id)).toEqual(["take_backup", "copy_a", "copy_b", "copy_a.verify", "switch"]);
    expect(originalTaskIds).toEqual(["take_backup", "copy_a", "copy_b", "switch"]);
    const [backup, copyA, copyB, check, sw] = plan.tasks;
    expect(check).toMatchObject({ kind: "verify", verifies: { task: "copy_a", subject: "mutation_output", reads: [] } });
    expect(copyA).toMatchObject({
      kind: "mutate",
      risk: "high",
      establishes: ["copied"],
      rollback: { trigger: "copy_a.verify", action: "restore snapshot (safety guard: keep the snapshot)", requires: [], restores: [] },
    });
    expect(copyB!.blast_radius).toBe("high");
    expect(backup!.preconditions).toEqual([{ fact: "db_up", established_by: "env" }]);
    expect(sw).toMatchObject({ blast_radius: "medium", rollback: { trigger: "switch" } });
    expect(plan.dependencies).toEqual([{ from: "take_backup", to: "copy_a", kind: "hard" }]);
  });

  it("notes what it derived and what it could not carry over", () => {
    expect(notes.map((n) => [n.kind, n.subject])).toEqual([
      ["derived", "tasks[0].preconditions[0].established_by"],
      ["not_convertible", "tasks[3].blast_radius"],
      ["not_convertible", "tasks[3].rollback.trigger"],
      ["derived", "tasks[].verification"],
    ]);
  });

  it("lets the gates judge what the predecessor's schema leaves unsaid", () => {
    const codes = runGates(makeGoal([], { id: "hand-01" }), plan).map((f) => `${f.code}:${f.task_id}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        "precondition_wrong_establisher:take_backup", // env fact the goal does not declare
        "verification_ignores_output:copy_a.verify", // the predecessor never said what a check reads
        "rollback_unreachable:switch", // its rollback has no check to trigger it
        "parallel_high_blast:copy_b",
      ]),
    );
    expect(codes).not.toContain("verification_missing:copy_a");
    expect(codes).not.toContain("rollback_missing:copy_a");
  });
});

describe("goal conversion", () => {
  const goal = PredecessorGoalSchema.parse({
    ...HAND_GOAL,
    title: "Orders DB",
    steps: ["a"],
    constraints: { ...HAND_GOAL.constraints, budget: { max_revisions: 3 }, phases: 2 },
  });
  const assertions = AssertionsSchema.parse({
    invariants: {
      approve_expected: false,
      max_revisions: 4,
      min_tasks: 2,
      mandatory_elements: ["backup"],
      acceptable_escalation_reasons: ["converged_stalled", "replan_patched"],
      mandatory_blocker_reason_codes: ["llm_risk"],
      forbidden_blockers: [],
    },
    escalation_required: true,
  });

  it("maps the expectations that have a meaning in fieldtest", () => {
    const converted = convertGoal(goal, assertions, { domain: "database" });
    if (typeof converted === "string") throw new Error(converted);
    expect(converted.goal).toMatchObject({
      id: "hand-01",
      domain: "database",
      title: "Orders DB",
      category: "strict",
      constraints: { environment: "production", tools: ["psql"], facts: [], max_revisions: 2 },
      expect: { verdict: "escalate", min_tasks: 2, mandatory_elements: ["backup"], escalation_reasons: ["converged_stalled"], forbidden_blocker_families: [] },
    });
  });

  it("reports every key it cannot map, and no silent drop", () => {
    const converted = convertGoal(goal, assertions, { domain: "database" });
    if (typeof converted === "string") throw new Error(converted);
    const unmapped = converted.notes.filter((n) => n.kind === "not_convertible").map((n) => n.subject);
    expect(unmapped).toEqual([
      "goal",
      "goal.constraints.phases",
      "assertions.invariants.acceptable_escalation_reasons",
      "assertions.invariants.max_revisions",
      "assertions.invariants.mandatory_blocker_reason_codes",
      "assertions.escalation_required",
    ]);
    expect(converted.notes.find((n) => n.subject === "goal")!.detail).toContain("steps");
  });

  it("without assertions expects approval (the predecessor's default) and says so", () => {
    const converted = convertGoal(goal, null, { domain: null });
    if (typeof converted === "string") throw new Error(converted);
    expect(converted.goal.expect.verdict).toBe("approve");
    expect(converted.goal.domain).toBe("unrecorded");
    expect(converted.notes.map((n) => n.subject)).toEqual(expect.arrayContaining(["assertions", "goal.domain"]));
  });

  it("refuses a goal id fieldtest cannot use, naming the field", () => {
    expect(convertGoal({ ...goal, id: "Bad_ID" }, null, { domain: null })).toMatch(/^id: /);
  });
});
