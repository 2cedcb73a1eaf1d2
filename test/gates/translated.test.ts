import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runGates } from "../../src/gates/index.ts";
import { setAsideTranslated } from "../../src/gates/translated.ts";
import { anyPlanOf } from "../helpers/arbitrary-plans.ts";
import { hard, makeGoal, makePlan, mutate, verify } from "../helpers/plans.ts";

const anyPlan = anyPlanOf({ names: ["f0", "f1", "out"] });

describe("gate findings on a translated plan", () => {
  it("sets aside exactly the findings on invented tasks, keeping every finding once and in order", () => {
    fc.assert(
      fc.property(anyPlan, fc.integer({ min: 0, max: 2 ** 16 }), (plan, mask) => {
        const findings = runGates(makeGoal(), plan);
        const invented = plan.tasks.map((t) => t.id).filter((_, i) => (mask >> i) & 1);
        const { counted, setAside } = setAsideTranslated(findings, invented);
        expect(setAside.every((f) => f.task_id !== null && invented.includes(f.task_id))).toBe(true);
        expect(counted.every((f) => f.task_id === null || !invented.includes(f.task_id))).toBe(true);
        // A partition that keeps each part in the gates' order.
        expect([...counted, ...setAside].map((f) => f.key).sort()).toEqual(findings.map((f) => f.key).sort());
        for (const part of [counted, setAside]) expect(part).toEqual(findings.filter((f) => part.includes(f)));
      }),
    );
  });

  it("sets aside a finding on an invented check but counts one on the engine's own task beside it", () => {
    // The engine's change has no rollback (its own defect); the translator's check reads nothing.
    const plan = makePlan(
      [mutate("apply", { risk: "high", produces: ["apply.out"] }), verify("apply.verify", "apply", "mutation_output")],
      [hard("apply", "apply.verify")],
    );
    const findings = runGates(makeGoal(), plan);
    const { counted, setAside } = setAsideTranslated(findings, ["apply.verify"]);
    expect(setAside.map((f) => [f.code, f.task_id])).toEqual([["verification_ignores_output", "apply.verify"]]);
    expect(counted.map((f) => [f.code, f.task_id])).toEqual([["rollback_missing", "apply"]]);
    expect(setAsideTranslated(findings, [])).toEqual({ counted: findings, setAside: [] });
  });
});
