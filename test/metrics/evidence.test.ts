import { describe, expect, it } from "vitest";
import { whyUnavailable } from "../../src/metrics/trial-facts.ts";
import { summarize } from "../../src/metrics/summary.ts";
import { boundaryTrial, boundaryTrials, call, engineTrials, finding } from "./builders.ts";
import type { TrialRecord } from "../../src/formats/records.ts";

const run = (trials: TrialRecord[]) => summarize({ trials, fixtures: [], goals: [] }, { seed: 5, bootstrapReps: 200 });

describe("unsupported_evidence_rate", () => {
  it("is contradicted plus missing-task findings over checkable findings, and each part apart", () => {
    const trials = [
      boundaryTrial("a", 0, "block", { findings: [finding({ status: "supported" }), finding({ status: "contradicted" }), finding({ status: "uncheckable" })] }),
      boundaryTrial("a", 1, "block", { findings: [finding({ status: "unsupported_reference" }), finding({ status: "supported" })] }),
      boundaryTrial("b", 0, "block", { findings: [finding({ status: "supported" })] }),
      // an unavailable critic has no findings to judge
      boundaryTrial("b", 1, "unavailable"),
    ];
    const s = run(trials);
    expect(s.metrics.unsupported_evidence_rate).toMatchObject({ value: 2 / 5, numerator: 2, denominator: 5, n_items: 2, n_trials: 3 });
    expect(s.metrics["unsupported_evidence_rate.contradicted"]).toMatchObject({ value: 1 / 5, numerator: 1 });
    expect(s.metrics["unsupported_evidence_rate.missing_task"]).toMatchObject({ value: 1 / 5, numerator: 1 });
  });
  it("is null with zero counts when no finding is checkable", () => {
    expect(run(boundaryTrials("a", "PP")).metrics.unsupported_evidence_rate).toMatchObject({ value: null, n_items: 0, denominator: 0 });
  });
});

describe("downgrade_rate", () => {
  it("is downgraded raw blockers over raw blockers, overall and per family", () => {
    const trials = [
      boundaryTrial("a", 0, "block", {
        findings: [
          finding({ family: "risk", rawSeverity: "Blocker", severity: "warning" }),
          finding({ family: "weak_rollback", rawSeverity: "blocker", severity: "blocker" }),
          finding({ family: "weak_rollback", rawSeverity: "blocker", severity: "warning", status: "contradicted" }),
          finding({ family: "risk", rawSeverity: "warning", severity: "warning" }),
        ],
      }),
      boundaryTrial("a", 1, "pass", { findings: [finding({ family: "mystery", rawSeverity: "BLOCKER", severity: "warning" })] }),
    ];
    const s = run(trials);
    expect(s.metrics.downgrade_rate).toMatchObject({ value: 3 / 4, numerator: 3, denominator: 4 });
    expect(s.metrics["downgrade_rate.risk"]!.value).toBe(1);
    expect(s.metrics["downgrade_rate.weak_rollback"]!.value).toBe(0.5);
    expect(s.metrics["downgrade_rate.unknown"]!.value).toBe(1);
    expect(s.metrics["downgrade_rate.feasibility"]).toMatchObject({ value: null, denominator: 0 });
  });
});

describe("availability", () => {
  it("reports critic_unavailable, trial errors and invalid output by their own rates", () => {
    const trials = [
      ...boundaryTrials("a", "BBPU"),
      ...boundaryTrials("b", "UUPP"),
      boundaryTrial("c", 0, "pass", { calls: [call({ outcome: "invalid_output" }), call(), call({ role: "planner" })] }),
      ...engineTrials("g", "AX"),
    ];
    const s = run(trials);
    expect(s.metrics.critic_unavailable_rate).toMatchObject({ value: expect.closeTo((0.25 + 0.5 + 0) / 3, 12), n_items: 3, n_trials: 9 });
    expect(s.metrics.trial_error_rate).toMatchObject({ value: expect.closeTo(0.5 / 4, 12), n_items: 4 });
    // call records: a 4, b 4, c 3, g 2 = 13, of which 10 critic
    expect(s.metrics.invalid_output_rate).toMatchObject({ numerator: 1, denominator: 13 });
    expect(s.metrics["invalid_output_rate.critic"]).toMatchObject({ numerator: 1, denominator: 10 });
    expect(s.metrics["invalid_output_rate.planner"]).toMatchObject({ numerator: 0, denominator: 3 });
  });

  it("names a role's last rejected answer, the reason an unavailable role gives", () => {
    const rejected = (role: "planner" | "critic", why: string) => ({ ...call({ role, outcome: "invalid_output" }), validation_error: why });
    const unavailable = (calls: ReturnType<typeof call>[], status: "escalated" | "error" = "escalated") => ({
      status,
      rounds: [],
      escalation_reasons: ["planner_unavailable" as const],
      calls,
    });
    const calls = [call(), rejected("planner", "not valid JSON (x)"), call({ role: "planner" }), rejected("critic", "findings: Required"), call()];
    expect(whyUnavailable(unavailable(calls))).toBe("critic: findings: Required");
    expect(whyUnavailable(unavailable([call(), call({ role: "planner" })]))).toBeNull();
    // A trial whose roles answered, or whose provider never did, has no such reason.
    expect(whyUnavailable({ ...unavailable(calls), escalation_reasons: [] })).toBeNull();
    expect(whyUnavailable(unavailable(calls, "error"))).toBeNull();
  });

  it("counts answers their provider ended early apart, as a part of invalid output, and bounds a zero exactly", () => {
    const ended = (role: "planner" | "critic") => ({ ...call({ role, outcome: "invalid_output" }), error_class: "incomplete" });
    const trials = [
      boundaryTrial("c", 0, "pass", { calls: [ended("critic"), call({ outcome: "invalid_output" }), call()] }),
      boundaryTrial("c", 1, "pass", { calls: [ended("planner"), call({ role: "planner" }), call()] }),
    ];
    const s = run(trials);
    expect(s.metrics.invalid_output_rate).toMatchObject({ numerator: 3, denominator: 6 });
    expect(s.metrics.ended_early_rate).toMatchObject({ value: 2 / 6, numerator: 2, denominator: 6 });
    expect(s.metrics["ended_early_rate.critic"]).toMatchObject({ numerator: 1, denominator: 4 });
    expect(s.metrics["ended_early_rate.planner"]).toMatchObject({ numerator: 1, denominator: 2 });
    const none = run([boundaryTrial("c", 0, "pass", { calls: [call(), call()] })]).metrics.ended_early_rate!;
    expect(none).toMatchObject({ value: 0, ci_low: 0, interval: "clopper_pearson" });
    expect(none.ci_high).toBeGreaterThan(0);
  });
});
