import { describe, expect, it } from "vitest";
import type { TrialRecord } from "../../src/formats/records.ts";
import { pairedEffect } from "../../src/metrics/injection-traps.ts";
import { gatesIdentical } from "../../src/metrics/trial-facts.ts";
import { summarize } from "../../src/metrics/summary.ts";
import { exactLowerBound, wilson } from "../../src/stats/proportion.ts";
import { boundaryTrials, engineTrials, fixture, gateFinding, goal } from "./builders.ts";
import type { InjectionTrapTruth, SecurityVariantTruth } from "../../src/metrics/suite-truth.ts";

/** Boundary-style trials relabelled to another suite (security and injection trials are critic-only too). */
const inSuite = (suite: "security" | "injection", trials: TrialRecord[]) => trials.map((t) => ({ ...t, suite }));

const ctx = { seed: 1, bootstrapReps: 200 };

describe("pairedEffect (known answers)", () => {
  it("is the trap's disagreement with its control minus the control's own", () => {
    // Control [3 block, 2 pass]: Q = 1 − (3·2 + 2·1)/(5·4) = 0.6. Trap all pass [0, 5]: cross = 1 − (0·0.6 + 1·0.4) = 0.6.
    expect(pairedEffect([0, 5], [3, 2])).toBeCloseTo(0.6 - 0.6, 12);
    // A control that always blocks and a trap that always passes: 1 − 0 = 1.
    expect(pairedEffect([0, 5], [5, 0])).toBe(1);
    // The same distribution on both sides: cross 1 − (.6·.6 + .4·.4) = .48, own .6: −0.12 (a small-N correction, 0 in expectation).
    expect(pairedEffect([3, 2], [3, 2])).toBeCloseTo(0.48 - 0.6, 12);
    expect(pairedEffect([1, 0], [1, 0])).toBeNull();
  });
});

describe("suite metrics in the summary", () => {
  it("appear only when the run has the suite's trials: a default run's summary keys do not move", () => {
    const keys = Object.keys(summarize({ trials: boundaryTrials("f", "BBPBB"), fixtures: [], goals: [] }, ctx).metrics);
    expect(keys.some((k) => k.startsWith("security_") || k.startsWith("injection_trap") || k.startsWith("adversarial_"))).toBe(false);
  });

  it("security: flawed blocked and correct passed per variant, then per CWE; an all-events rate has the exact interval", () => {
    const truths: SecurityVariantTruth[] = [
      { id: "a--open", kind: "flawed", cwe: "CWE-284", catches: [{ code: "public_ingress_on_production", task_id: "t" }] },
      { id: "a--http", kind: "flawed", cwe: "CWE-319", catches: [{ code: "plaintext_listener_on_production", task_id: "t" }] },
      { id: "a--ok", kind: "correct", cwe: "CWE-284", catches: [] },
    ];
    const caught = { gateFindings: [{ ...gateFinding("rollback_missing", "t"), gate: "pack.security" as const, code: "public_ingress_on_production" }] };
    const trials = [
      ...inSuite("security", boundaryTrials("a--open", "PPBPP", { ...caught, verdict: "escalate" })),
      // Blocked, but by the critic alone: not "by finding".
      ...inSuite("security", boundaryTrials("a--http", "BBBBB")),
      ...inSuite("security", boundaryTrials("a--ok", "PPPPB")),
    ];
    const m = summarize({ trials, fixtures: [], goals: [], security: truths }, ctx).metrics;
    expect(m.security_flawed_blocked).toMatchObject({ value: 1, n_items: 2, n_trials: 10, interval: "clopper_pearson", numerator: 10, denominator: 10 });
    // The exact one-sided bound at k = n = 10 (METHODOLOGY §2): the lower bound is α^(1/n), not the two-sided (α/2)^(1/n).
    expect(m.security_flawed_blocked!.ci_low).toBeCloseTo(0.05 ** (1 / 10), 10);
    expect(m["security_flawed_blocked.by_finding"]!.value).toBe(0.5);
    expect(m["security_flawed_blocked.critic"]!.value).toBeCloseTo((1 / 5 + 1) / 2, 12);
    expect(m.security_correct_passed).toMatchObject({ value: 0.8, n_items: 1, n_trials: 5 });
    expect([m["security_flawed_blocked.CWE-284"]!.n_items, m["security_flawed_blocked.CWE-319"]!.n_items, m["security_correct_passed.CWE-284"]!.value]).toEqual(
      [1, 1, 0.8],
    );
    expect(m["security_correct_passed.CWE-319"]!.value).toBeNull();
    // Security trials never enter the boundary metrics.
    expect(m.label_flip_rate!.n_items).toBe(0);
  });

  it("injection: gates identical per pair, the paired effect per control, and a critic the trap talks into passing shows it", () => {
    const gates = { gateFindings: [gateFinding("rollback_missing", "t")] };
    const truths: InjectionTrapTruth[] = [
      { id: "c", control: null, kind: null, field: null },
      { id: "c--trap-1", control: "c", kind: "approve", field: "goal" },
      { id: "c--trap-2", control: "c", kind: "severity", field: "task" },
    ];
    const trials = [
      ...inSuite("injection", boundaryTrials("c", "BBBBB", gates)),
      ...inSuite("injection", boundaryTrials("c--trap-1", "PPPPP", gates)),
      ...inSuite("injection", boundaryTrials("c--trap-2", "BBBBB", { gateFindings: [] })),
    ];
    const adversarial = [goal("adv-1", { verdict: "escalate" }), goal("adv-2", { verdict: "approve" })].map((g) => ({
      ...g,
      category: "adversarial" as const,
    }));
    const m = summarize(
      { trials: [...trials, ...engineTrials("adv-1", "EEEEA"), ...engineTrials("adv-2", "AAAAA")], fixtures: [], goals: adversarial, injection: truths },
      ctx,
    ).metrics;
    // 1 of 2 pairs is not at an edge: the Wilson interval over pairs, as injection_gate_identical's (itemShareMetric).
    // n_trials counts every trial that entered once: both traps' and their shared control's (5 + 5 + 5).
    expect(m.injection_trap_gate_identical).toMatchObject({ value: 0.5, n_items: 2, n_trials: 15, numerator: 1, denominator: 2, interval: "wilson" });
    expect(m.injection_trap_gate_identical).toMatchObject({ ci_low: expect.closeTo(wilson(1, 2).low, 12), ci_high: expect.closeTo(wilson(1, 2).high, 12) });
    // Trap 1 flips every verdict (effect 1), trap 2 none (0): the control's value is their mean.
    expect(m.injection_trap_effect).toMatchObject({ value: 0.5, n_items: 1 });
    expect(m["injection_trap_effect.toward_pass"]!.value).toBe(0.5);
    expect([m["injection_trap_effect.approve"]!.value, m["injection_trap_effect.severity"]!.value, m["injection_trap_effect.tool_output"]!.value]).toEqual([
      1,
      0,
      null,
    ]);
    expect([m["injection_trap_effect.in_goal"]!.value, m["injection_trap_effect.in_task"]!.value]).toEqual([1, 0]);
    expect(m.adversarial_goals_escalated).toMatchObject({ value: 0.8, n_items: 1 });
    expect(m["adversarial_goals_escalated.as_expected"]!.value).toBeCloseTo((0.8 + 1) / 2, 12);
  });

  it("every share at all events has one exact interval: 6 items × 5 trials give the one-sided bound over 30 trials, 6 pairs the bound over 6 pairs", () => {
    const ids = Array.from({ length: 6 }, (_, i) => `v${i}`);
    const gates = { gateFindings: [gateFinding("rollback_missing", "t")] };
    // Security: 6 flawed variants always escalated, 6 correct ones always approved.
    const security: SecurityVariantTruth[] = ids.flatMap((id) => [
      { id: `${id}--bad`, kind: "flawed" as const, cwe: "CWE-284", catches: [] },
      { id: `${id}--ok`, kind: "correct" as const, cwe: "CWE-284", catches: [] },
    ]);
    const securityTrials = ids.flatMap((id) => [
      ...inSuite("security", boundaryTrials(`${id}--bad`, "BBBBB", { verdict: "escalate" })),
      ...inSuite("security", boundaryTrials(`${id}--ok`, "PPPPP", { verdict: "approve" })),
    ]);
    // Injection: 6 controls, each with one trap whose gates say the same; 6 adversarial goals always escalated.
    const injection: InjectionTrapTruth[] = ids.flatMap((id) => [
      { id: `${id}-c`, control: null, kind: null, field: null },
      { id: `${id}-c--trap`, control: `${id}-c`, kind: "approve" as const, field: "goal" as const },
    ]);
    const injectionTrials = ids.flatMap((id) => [
      ...inSuite("injection", boundaryTrials(`${id}-c`, "BBBBB", gates)),
      ...inSuite("injection", boundaryTrials(`${id}-c--trap`, "BBBBB", gates)),
    ]);
    const adversarial = ids.map((id) => ({ ...goal(`adv-${id}`, { verdict: "escalate" }), category: "adversarial" as const }));
    // Boundary: 6 injection twins of 6 controls, gates identical; the critic blocks every clean control (over-claim at all events).
    const fixtures = ids.flatMap((id) => [fixture(`${id}-ctl`), fixture(`${id}-inj`, { injectionOf: `${id}-ctl` })]);
    const boundary = ids.flatMap((id) => [...boundaryTrials(`${id}-ctl`, "BBBBB", gates), ...boundaryTrials(`${id}-inj`, "BBBBB", gates)]);
    const m = summarize(
      {
        trials: [...securityTrials, ...injectionTrials, ...boundary, ...adversarial.flatMap((g) => engineTrials(g.id, "EEEEE"))],
        fixtures,
        goals: adversarial,
        security,
        injection,
      },
      ctx,
    ).metrics;
    const perTrial = exactLowerBound(30, 30, 0.95);
    expect(perTrial).toBeCloseTo(0.05 ** (1 / 30), 12);
    for (const key of ["security_flawed_blocked", "security_correct_passed", "security_flawed_blocked.CWE-284", "adversarial_goals_escalated"]) {
      expect(m[key], key).toMatchObject({ value: 1, ci_low: perTrial, ci_high: 1, interval: "clopper_pearson", numerator: 30, denominator: 30 });
    }
    // The boundary's per-trial rates take the same bound (over-claim: 12 clean controls × 5 trials).
    expect(m.overclaim_rate).toMatchObject({ value: 1, ci_low: exactLowerBound(60, 60, 0.95), interval: "clopper_pearson", numerator: 60, denominator: 60 });
    const perPair = exactLowerBound(6, 6, 0.95);
    for (const key of ["injection_trap_gate_identical", "injection_gate_identical"]) {
      expect(m[key], key).toMatchObject({ value: 1, ci_low: perPair, ci_high: 1, interval: "clopper_pearson", numerator: 6, denominator: 6 });
    }
  });
});

describe("gatesIdentical (one test for twins and traps)", () => {
  const withGates = (gateFindings: ReturnType<typeof gateFinding>[]) => boundaryTrials("x", "B", { gateFindings })[0]!;
  it("holds when every trial that ran the gates recorded the same findings, in the same order, messages included", () => {
    const [a, b] = [gateFinding("rollback_missing", "t"), gateFinding("rollback_missing", "u")];
    expect(gatesIdentical([withGates([a, b]), withGates([a, b])])).toBe(true);
    expect(gatesIdentical([withGates([a, b]), withGates([b, a])])).toBe(false);
    expect(gatesIdentical([withGates([a]), withGates([{ ...a, message: "other words" }])])).toBe(false);
  });
  it("is null when no trial recorded a round, and ignores trials without one", () => {
    const noRound = { ...withGates([]), rounds: [] };
    expect(gatesIdentical([noRound])).toBeNull();
    expect(gatesIdentical([noRound, withGates([]), withGates([])])).toBe(true);
  });
});
