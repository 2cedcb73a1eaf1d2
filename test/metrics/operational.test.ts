import { describe, expect, it } from "vitest";
import { summarize } from "../../src/metrics/summary.ts";
import { boundaryTrial, call, engineTrial, finding, gateFinding } from "./builders.ts";
import type { TrialRecord } from "../../src/formats/records.ts";

const run = (trials: TrialRecord[]) => summarize({ trials, fixtures: [], goals: [] }, { seed: 9, bootstrapReps: 100 });

describe("operational metrics", () => {
  const gate = gateFinding("rollback_missing", "a");
  const critic = finding({ family: "weak_rollback" });
  const trials = [
    // g1/0: escalated after 3 rounds; the gate blocker repeats across rounds and counts once.
    engineTrial("g1", 0, "escalated", {
      latency: 300,
      reasons: ["revision_cap_reached", "critic_unavailable"],
      rounds: [{ blockerKeys: [gate.key] }, { blockerKeys: [gate.key, critic.key] }, { blockerKeys: [critic.key] }],
      calls: [call({ role: "planner", attempts: 3 }), call({ role: "critic", attempts: 1, cost: 0.5 })],
    }),
    engineTrial("g1", 1, "approved", { latency: 100, calls: [call({ role: "planner" }), call({ role: "critic", usage: null })] }),
    engineTrial("g2", 0, "approved", { latency: 200, rounds: [{}, {}], calls: [call({ role: "planner", cost: null })] }),
    engineTrial("g2", 1, "error", { latency: 50, calls: [call({ role: "planner", attempts: 2, outcome: "error", usage: null })] }),
  ];
  const op = run(trials).operational;

  it("latency quantiles by status pool the trials of that status", () => {
    expect(op["latency_ms_p50.approved"]).toMatchObject({ value: 150, n_items: 2, n_trials: 2, interval: "none" });
    expect(op["latency_ms_p95.approved"]!.value).toBeCloseTo(195, 12);
    expect(op["latency_ms_p50.escalated"]).toMatchObject({ value: 300, n_trials: 1 });
    expect(op["latency_ms_p50.error"]).toMatchObject({ value: 50, n_trials: 1 });
  });
  it("blockers per goal count distinct keys per decided trial by origin, reduced per goal first (an errored trial is left out)", () => {
    // g1: gate (1 + 0)/2 = 0.5, critic (1 + 0)/2 = 0.5; g2: its one decided trial, 0 → means 0.25
    expect(op["blockers_per_goal.gate"]).toMatchObject({ value: 0.25, n_items: 2, n_trials: 3 });
    expect(op["blockers_per_goal.critic"]!.value).toBe(0.25);
  });
  it("escalations per 100 goals leave errors out and count every recorded reason", () => {
    // decided trials: g1 (1 of 2 escalated) → 50; g2 (0 of 1) → 0.
    expect(op.escalations_per_100_goals).toMatchObject({ value: 25, n_items: 2, n_trials: 3 });
    expect(op["escalations_per_100_goals.critic_unavailable"]!.value).toBe(25);
    expect(op["escalations_per_100_goals.converged_stalled"]!.value).toBe(0);
  });
  it("LLM calls per goal count every transport attempt", () => {
    // g1: (3 + 1) and (1 + 1) → 3; g2: 1 and 2 → 1.5
    expect(op.llm_calls_per_goal!.value).toBe(2.25);
    expect(op["llm_calls_per_goal.planner"]!.value).toBe((2 + 1.5) / 2);
    expect(op["llm_calls_per_goal.critic"]!.value).toBe(0.5);
  });
  it("LLM calls per decided goal leave the errored trial out", () => {
    // g1: planner (3 + 1)/2 = 2, critic 1; g2: its one decided trial, planner 1, critic 0.
    expect(op["llm_calls_per_decided_goal.planner"]).toMatchObject({ value: 1.5, n_items: 2, n_trials: 3 });
    expect(op["llm_calls_per_decided_goal.critic"]!.value).toBe(0.5);
  });
  it("median revisions is rounds − 1 over trials that produced a plan", () => {
    expect(op.revisions_median).toMatchObject({ value: 1, n_trials: 3 });
  });
  it("median revisions leave out a trial cut short, whatever rounds it had", () => {
    const cut: TrialRecord = { ...engineTrial("g3", 0, "approved", { rounds: [{}] }), status: "error", verdict: "escalate", error: "cut short" };
    const more = (status: TrialRecord["status"]) => run([...trials, { ...cut, status }]).operational.revisions_median;
    expect(more("error")).toMatchObject({ value: 1, n_items: 2, n_trials: 3 });
    // The same trial decided counts: its 0 revisions move the median.
    expect(more("approved")).toMatchObject({ value: 0.5, n_items: 3, n_trials: 4 });
  });
  it("cost is null when any call's cost is null; tokens sum reported usage", () => {
    expect(op.cost_usd!.value).toBeNull();
    expect(op["cost_usd.critic"]!.value).toBe(0.5);
    expect(op["cost_usd.planner"]!.value).toBeNull();
    expect(op["tokens_input.planner"]).toMatchObject({ value: 300, n_trials: 4 });
    expect(op["tokens_input.critic"]!.value).toBe(100);
    expect(op["calls_without_usage.critic"]!.value).toBe(1);
  });
});

describe("carry-forward lapses per 100 goals", () => {
  const lapse = (task_id: string) => ({ key: `critic:weak_rollback:${task_id}:missing_rollback:${task_id}:`, task_id });
  const op = run([
    engineTrial("g1", 0, "escalated", { rounds: [{ lapsed: [] }, { lapsed: [lapse("a"), lapse("b")] }] }),
    engineTrial("g1", 1, "approved", { rounds: [{ lapsed: [] }] }),
    engineTrial("g2", 0, "approved", { rounds: [{ lapsed: [] }, { lapsed: [lapse("c")] }] }),
    engineTrial("g2", 1, "approved", { rounds: [{ lapsed: [] }] }),
    // An errored trial was cut short, and a trial written before lapses were recorded says nothing: both left out.
    engineTrial("g2", 2, "error", { rounds: [{ lapsed: [lapse("d")] }] }),
    engineTrial("g3", 0, "approved", { rounds: [{}] }),
  ]).operational;

  it("count the lapses of every round per decided trial that records them, per goal, then over goals", () => {
    // g1: (2 + 0) / 2 → 100; g2: (1 + 0) / 2 → 50.
    expect(op.carry_forward_lapses_per_100_goals).toMatchObject({ value: 75, n_items: 2, n_trials: 4 });
  });

  it("are unknown when no trial records them, never a measured 0", () => {
    const old = run([engineTrial("g", 0, "approved", { rounds: [{}, {}] })]).operational;
    expect(old.carry_forward_lapses_per_100_goals).toMatchObject({ value: null, n_trials: 0 });
  });
});

describe("tokens when no call reported usage", () => {
  it("are unknown (null), never a measured 0", () => {
    const trials = [engineTrial("g", 0, "approved", { calls: [call({ role: "planner", usage: null }), call({ role: "critic", usage: null })] })];
    const op = summarize({ trials, fixtures: [], goals: [] }, { seed: 1, bootstrapReps: 10 }).operational;
    expect(op["tokens_input.planner"]!.value).toBeNull();
    expect(op["tokens_output.critic"]!.value).toBeNull();
    expect(op["calls_without_usage.planner"]!.value).toBe(1);
  });
});

describe("spend covers every suite", () => {
  it("the security and injection suites' calls count in tokens, cost and calls without usage, though their verdicts have metrics of their own", () => {
    const critic = (cost: number, usage?: null) => [call({ role: "critic", cost, ...(usage === null ? { usage } : {}) })];
    const trials = [
      engineTrial("g", 0, "approved", { calls: [call({ role: "planner", cost: 0.25 })] }),
      boundaryTrial("b", 0, "pass", { calls: critic(0.5) }),
      { ...boundaryTrial("s", 0, "block", { calls: critic(1) }), suite: "security" as const },
      { ...boundaryTrial("i", 0, "pass", { calls: critic(2, null) }), suite: "injection" as const },
    ];
    const op = run(trials).operational;
    expect(op.cost_usd).toMatchObject({ value: 3.75, n_trials: 4 });
    expect(op["cost_usd.critic"]!.value).toBe(3.5);
    expect(op["calls_without_usage.critic"]!.value).toBe(1);
    expect(op["tokens_input.critic"]!.value).toBe(200);
  });
});
