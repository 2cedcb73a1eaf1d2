import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/canonical.ts";
import { CRITIC_PROMPT, PLANNER_PROMPT } from "../../src/critic/prompts/index.ts";
import type { EngineOutcome } from "../../src/formats/records.ts";
import { runEngine, type EngineOptions } from "../../src/loop/engine.ts";
import {
  CLEAN_AUDIT,
  criticAnswer,
  criticFinding,
  goal,
  NO_CHECK,
  NO_CHECK_ON_LOGS,
  NO_ROLLBACK,
  NO_ROLLBACK_NOTIFIED,
  NO_ROLLBACK_ON_CACHE,
  planAnswer,
  SOUND,
  SOUND_REWORDED,
  WITH_CACHE,
  WITH_CACHE_LOW_LOGS,
  WITHOUT_CACHE,
} from "./fixtures.ts";
import { hard, makePlan, mutate, notify, verify } from "../helpers/plans.ts";
import { answer, providerError, ScriptedClient, simExtraOf, type ScriptEntry } from "./scripted-client.ts";

type GoalOverrides = Parameters<typeof goal>[0];

async function run(
  script: { planner: ScriptEntry[]; critic?: ScriptEntry[] },
  goalOverrides: GoalOverrides = {},
  options: EngineOptions = {},
  clientOptions: ConstructorParameters<typeof ScriptedClient>[1] = {},
): Promise<{ outcome: EngineOutcome; client: ScriptedClient }> {
  const client = new ScriptedClient(script, clientOptions);
  const outcome = await runEngine(goal(goalOverrides), { client, itemId: "item", trial: 0 }, options);
  return { outcome, client };
}

const decisions = (o: EngineOutcome) => o.rounds.map((r) => [r.decision, r.reason]);

describe("runEngine: approval", () => {
  it("approves on the first round: one plan, one clean audit", async () => {
    const { outcome, client } = await run({ planner: [planAnswer(SOUND)], critic: [CLEAN_AUDIT] });
    expect(outcome).toMatchObject({ status: "approved", verdict: "approve", escalation_reason: null, escalation_reasons: [], critic_verdict: null });
    expect(decisions(outcome)).toEqual([["approve", null]]);
    expect(outcome.calls.map((c) => c.role)).toEqual(["planner", "critic"]);
    expect(outcome.rounds[0]!.plan).toMatchObject({ id: "plan-test-goal-r1", goal_id: "test-goal", version: 1, parent_id: null });
    expect(client.requests.map((r) => simExtraOf(r).mode ?? null)).toEqual(["decompose", null]);
  });

  it("fixes a gate defect after one revision; the critic runs only on the gate-clean plan", async () => {
    const { outcome, client } = await run({ planner: [planAnswer(NO_ROLLBACK), planAnswer(SOUND)], critic: [CLEAN_AUDIT] });
    expect(outcome.status).toBe("approved");
    expect(decisions(outcome)).toEqual([
      ["revise", null],
      ["approve", null],
    ]);
    expect(outcome.rounds[0]!.critic).toBeNull();
    expect(outcome.rounds[0]!.blocker_keys).toEqual(["rollback_present:rollback_missing:migrate:rollback"]);
    const revise = client.requestsFor("planner")[1]!;
    expect(simExtraOf(revise)).toMatchObject({ mode: "revise", plan: { id: "plan-test-goal-r1" } });
    expect(simExtraOf(revise).findings).toEqual([
      { key: "rollback_present:rollback_missing:migrate:rollback", family: "weak_rollback", task_id: "migrate", origin: "gate" },
    ]);
    expect(revise.user).toContain("rollback_missing");
    expect(outcome.rounds[1]!.plan).toMatchObject({ id: "plan-test-goal-r2", version: 2, parent_id: "plan-test-goal-r1" });
  });

  it("fixes a supported critic blocker after one revision", async () => {
    const { outcome } = await run({
      planner: [planAnswer(WITH_CACHE), planAnswer(WITHOUT_CACHE)],
      critic: [criticAnswer(NO_ROLLBACK_ON_CACHE), CLEAN_AUDIT],
    });
    expect(outcome.status).toBe("approved");
    expect(outcome.rounds[0]!.blocker_keys).toEqual(["critic:weak_rollback:tune_cache:missing_rollback:tune_cache:"]);
  });

  it("a blocker the critic repeats in one answer is one blocker: the revision is asked to fix it once", async () => {
    const { outcome, client } = await run({
      planner: [planAnswer(WITH_CACHE), planAnswer(WITHOUT_CACHE)],
      critic: [criticAnswer(NO_ROLLBACK_ON_CACHE, NO_ROLLBACK_ON_CACHE), CLEAN_AUDIT],
    });
    expect(outcome.status).toBe("approved");
    expect(outcome.rounds[0]!.critic!.findings).toHaveLength(2);
    const findings = simExtraOf(client.requestsFor("planner")[1]!).findings!;
    expect(findings.map((f) => f.key)).toEqual(["critic:weak_rollback:tune_cache:missing_rollback:tune_cache:"]);
  });

  it("a balanced goal approves over a critic blocker whose evidence is only uncheckable", async () => {
    const { outcome } = await run({ planner: [planAnswer(SOUND)], critic: [criticAnswer({ family: "feasibility" })] }, { risk_tolerance: "balanced" });
    expect(outcome.status).toBe("approved");
    expect(outcome.rounds[0]!.critic!.findings[0]).toMatchObject({ severity: "blocker", evidence_status: "uncheckable" });
  });

  it("a balanced goal approves a sound pre-state check that the critic calls misordered: it runs before its mutation and never depends on it", async () => {
    const checked = makePlan([SOUND.tasks[0]!, verify("check_pre", "migrate", "pre_state"), ...SOUND.tasks.slice(1)], SOUND.dependencies);
    const misordered = criticAnswer({
      family: "unsafe_sequencing",
      task_id: "check_pre",
      evidence: { claim: "misordered", tasks: ["check_pre", "migrate"], facts: [] },
    });
    const { outcome } = await run({ planner: [planAnswer(checked), planAnswer(checked)], critic: [misordered, misordered] }, { risk_tolerance: "balanced" });
    expect(outcome.rounds[0]!.gate_findings).toEqual([]);
    expect(outcome.rounds[0]!.critic!.findings[0]).toMatchObject({ severity: "blocker", evidence_status: "uncheckable" });
    expect(decisions(outcome)).toEqual([["approve", null]]);
  });

  it("the trace records raw and normalized severities and each call's decision context", async () => {
    const { outcome } = await run({ planner: [planAnswer(SOUND)], critic: [criticAnswer({ family: "RISK", severity: "Blocker" })] });
    expect(outcome.rounds[0]!.critic!.findings[0]).toMatchObject({ raw: { family: "RISK", severity: "Blocker" }, family: "risk", severity: "warning" });
    const [planner, critic] = outcome.calls;
    expect(planner!.context.system_prompt_sha256).toBe(PLANNER_PROMPT.system_sha256);
    expect(planner!.context.user_template_sha256).toBe(PLANNER_PROMPT.templates.decompose.sha256);
    expect(critic!.context).toMatchObject({
      system_prompt_sha256: CRITIC_PROMPT.system_sha256,
      user_template_sha256: CRITIC_PROMPT.templates.review.sha256,
      schema_sha256: CRITIC_PROMPT.schema_sha256,
    });
  });
});

describe("runEngine: escalation reasons", () => {
  it("stalls when a revision changes only prose and the same blockers remain", async () => {
    const { outcome } = await run({
      planner: [planAnswer(NO_ROLLBACK), planAnswer({ ...NO_ROLLBACK, tasks: NO_ROLLBACK.tasks.map((t) => ({ ...t, description: `${t.description}!` })) })],
    });
    expect(outcome).toMatchObject({ status: "escalated", escalation_reason: "converged_stalled" });
    expect(decisions(outcome)).toEqual([
      ["revise", null],
      ["escalate", "converged_stalled"],
    ]);
  });

  it("detects oscillation A, B, A within the default cap of four rounds", async () => {
    const { outcome, client } = await run({
      planner: [planAnswer(WITH_CACHE), planAnswer(WITHOUT_CACHE), planAnswer(WITH_CACHE)],
      critic: [criticAnswer(NO_ROLLBACK_ON_CACHE), criticAnswer(NO_CHECK_ON_LOGS), criticAnswer(NO_ROLLBACK_ON_CACHE)],
    });
    expect(outcome).toMatchObject({ status: "escalated", escalation_reason: "plan_oscillation_detected", escalation_reasons: ["plan_oscillation_detected"] });
    expect(outcome.rounds).toHaveLength(3);
    expect(outcome.rounds[0]!.structural_hash).toBe(outcome.rounds[2]!.structural_hash);
    expect(client.remaining("planner")).toBe(0);
  });

  it("a plan that never changed is not oscillating: the critic's changing objections run to the cap", async () => {
    const objection = (task_id: string | null) => criticAnswer({ family: "feasibility", task_id });
    const { outcome } = await run({
      planner: [planAnswer(SOUND), planAnswer(SOUND), planAnswer(SOUND), planAnswer(SOUND)],
      critic: [objection("snapshot"), objection("migrate"), objection("verify_migrate"), objection(null)],
    });
    expect(new Set(outcome.rounds.map((r) => r.structural_hash)).size).toBe(1);
    expect(outcome.escalation_reasons).toEqual(["revision_cap_reached"]);
    expect(decisions(outcome)).toEqual([
      ["revise", null],
      ["revise", null],
      ["revise", null],
      ["escalate", "revision_cap_reached"],
    ]);
  });

  it("an unavailable role is the only reason, even at the cap and under policy abort", async () => {
    const critic = await run({ planner: [planAnswer(SOUND)], critic: [answer('{"issues": []}')] }, { replan_policy: "abort" }, { maxRounds: 1 });
    expect(critic.outcome.escalation_reasons).toEqual(["critic_unavailable"]);
    const planner = await run({ planner: [planAnswer(NO_ROLLBACK), answer("no plan today")] }, { replan_policy: "patch" }, { maxRounds: 2 });
    expect(planner.outcome.escalation_reasons).toEqual(["planner_unavailable"]);
  });

  it("detects a regression: a fixed gate defect comes back (before the oscillation it also is)", async () => {
    const { outcome } = await run({ planner: [planAnswer(NO_ROLLBACK), planAnswer(NO_CHECK), planAnswer(NO_ROLLBACK_NOTIFIED)] });
    expect(outcome).toMatchObject({ escalation_reason: "regression_thrashing", escalation_reasons: ["regression_thrashing"] });
    const again = await run({ planner: [planAnswer(NO_ROLLBACK), planAnswer(NO_CHECK), planAnswer(NO_ROLLBACK)] });
    expect(again.outcome.escalation_reasons).toEqual(["regression_thrashing", "plan_oscillation_detected"]);
  });

  it("reaches the revision cap (default four rounds, three revisions)", async () => {
    const plans = [WITH_CACHE, WITH_CACHE_LOW_LOGS, WITHOUT_CACHE, SOUND];
    const { outcome } = await run({
      planner: plans.map(planAnswer),
      critic: [criticAnswer(NO_ROLLBACK_ON_CACHE), criticAnswer(NO_ROLLBACK_ON_CACHE), criticAnswer(NO_CHECK_ON_LOGS), criticAnswer({ family: "feasibility" })],
    });
    expect(outcome.escalation_reason).toBe("revision_cap_reached");
    expect(outcome.rounds).toHaveLength(4);
    expect(outcome.calls.filter((c) => c.role === "planner")).toHaveLength(4);
  });

  it("a goal's max_revisions overrides the cap; maxRounds sets the default", async () => {
    const capped = await run({ planner: [planAnswer(NO_ROLLBACK)] }, { constraints: { facts: ["window_booked"], max_revisions: 0 } }, { maxRounds: 9 });
    expect(decisions(capped.outcome)).toEqual([["escalate", "revision_cap_reached"]]);
    const short = await run({ planner: [planAnswer(NO_ROLLBACK), planAnswer(NO_CHECK)] }, {}, { maxRounds: 2 });
    expect(short.outcome.rounds).toHaveLength(2);
    expect(short.outcome.escalation_reason).toBe("revision_cap_reached");
  });

  it("replan_policy abort escalates on a gate-blocked first round, without asking the critic or the planner again", async () => {
    const { outcome, client } = await run({ planner: [planAnswer(NO_ROLLBACK), planAnswer(SOUND)] }, { replan_policy: "abort" });
    expect(outcome).toMatchObject({ status: "escalated", escalation_reason: "replan_aborted" });
    expect(decisions(outcome)).toEqual([["escalate", "replan_aborted"]]);
    expect(client.requestsFor("critic")).toHaveLength(0);
    expect(client.remaining("planner")).toBe(1);
  });

  it("replan_policy restart asks for a fresh plan with the findings as context", async () => {
    const { client } = await run({ planner: [planAnswer(NO_ROLLBACK), planAnswer(SOUND)], critic: [CLEAN_AUDIT] }, { replan_policy: "restart" });
    const second = client.requestsFor("planner")[1]!;
    expect(simExtraOf(second).mode).toBe("restart");
    expect(second.userTemplate).toBe(PLANNER_PROMPT.templates.restart.text);
    expect(second.user).toContain("rollback_missing");
  });

  it("budget: stops before the revision when the calls are spent", async () => {
    const { outcome, client } = await run(
      { planner: [planAnswer(WITH_CACHE), planAnswer(WITHOUT_CACHE)], critic: [criticAnswer(NO_ROLLBACK_ON_CACHE)] },
      {},
      { budget: { calls: 2 } },
    );
    expect(outcome).toMatchObject({ status: "escalated", escalation_reason: "budget_exceeded" });
    expect(client.remaining("planner")).toBe(1);
  });

  it("budget: a critic the budget keeps from running fails closed as budget_exceeded", async () => {
    const { outcome, client } = await run({ planner: [planAnswer(SOUND)], critic: [CLEAN_AUDIT] }, {}, { budget: { tokens: 150 } });
    expect(outcome.escalation_reasons).toEqual(["budget_exceeded"]);
    expect(outcome.rounds[0]!.critic).toMatchObject({ outcome: "critic_unavailable", reason: "budget_exceeded" });
    expect(client.requestsFor("critic")).toHaveLength(0);
  });

  it("budget: an unknown cost never counts as zero under a cost limit", async () => {
    const { outcome } = await run({ planner: [planAnswer(SOUND)], critic: [CLEAN_AUDIT] }, {}, { budget: { costUsd: 100 } }, { costUsd: null });
    expect(outcome.escalation_reason).toBe("budget_exceeded");
    const priced = await run({ planner: [planAnswer(SOUND)], critic: [CLEAN_AUDIT] }, {}, { budget: { costUsd: 100 } }, { costUsd: 0.01 });
    expect(priced.outcome.status).toBe("approved");
  });

  it("budget: a client that refuses for budget escalates budget_exceeded, not planner_unavailable", async () => {
    const { outcome } = await run({ planner: [{ fail: "budget_exceeded" }] });
    expect(outcome).toMatchObject({ escalation_reasons: ["budget_exceeded"], rounds: [] });
  });
});

describe("runEngine: model failures are outcomes, never exceptions", () => {
  it("planner invalid output on the first draft: planner_unavailable with no rounds", async () => {
    const { outcome } = await run({ planner: [answer('{"tasks": "not a list"}')] });
    expect(outcome).toMatchObject({ status: "escalated", escalation_reason: "planner_unavailable", rounds: [] });
    expect(outcome.calls).toHaveLength(1);
    expect(outcome.calls[0]!.outcome).toBe("invalid_output");
  });

  it("planner failure on a revision ends the round it was asked by", async () => {
    const { outcome } = await run({ planner: [planAnswer(NO_ROLLBACK), providerError] });
    expect(outcome.escalation_reason).toBe("planner_unavailable");
    expect(decisions(outcome)).toEqual([["escalate", "planner_unavailable"]]);
  });

  it.each(["strict", "balanced"] as const)("critic unavailable escalates under %s, with the raw text kept", async (tolerance) => {
    const { outcome } = await run({ planner: [planAnswer(SOUND)], critic: [answer('{"issues": []}')] }, { risk_tolerance: tolerance });
    expect(outcome).toMatchObject({ status: "escalated", escalation_reasons: ["critic_unavailable"] });
    expect(outcome.rounds[0]!.critic).toMatchObject({ outcome: "critic_unavailable", reason: "invalid_output", raw_text: '{"issues": []}' });
  });

  it("a critic provider error escalates critic_unavailable", async () => {
    const { outcome } = await run({ planner: [planAnswer(SOUND)], critic: [providerError] });
    expect(outcome.rounds[0]!.critic).toMatchObject({ outcome: "critic_unavailable", reason: "provider_error" });
    expect(outcome.escalation_reason).toBe("critic_unavailable");
  });

  it("one malformed finding does not cost the audit: the rest stands and it is counted", async () => {
    const { outcome } = await run({ planner: [planAnswer(SOUND)], critic: [answer({ findings: [{ family: "risk" }, criticFinding({ severity: "info" })] })] });
    expect(outcome.status).toBe("approved");
    expect(outcome.rounds[0]!.critic).toMatchObject({ outcome: "ok", malformed_findings: 1 });
  });

  it("a malformed blocker beside a well-formed finding is no audit: critic_unavailable, never an approval", async () => {
    const { outcome } = await run({
      planner: [planAnswer(SOUND)],
      critic: [answer({ findings: [{ family: "weak_rollback", severity: "BLOCKER", message: "" }, criticFinding({ severity: "info" })] })],
    });
    expect(outcome).toMatchObject({ status: "escalated", escalation_reasons: ["critic_unavailable"] });
    expect(outcome.rounds[0]!.critic).toMatchObject({ outcome: "critic_unavailable", reason: "invalid_output", malformed_findings: 1 });
  });

  it("findings that are all malformed are no audit: critic_unavailable, never an approval", async () => {
    const { outcome } = await run({ planner: [planAnswer(SOUND)], critic: [answer({ findings: [{ family: "risk" }] })] });
    expect(outcome).toMatchObject({ status: "escalated", escalation_reasons: ["critic_unavailable"] });
    expect(outcome.rounds[0]!.critic).toMatchObject({ outcome: "critic_unavailable", reason: "invalid_output", malformed_findings: 1 });
  });
});

describe("runEngine: carry-forward", () => {
  it("a revision that edits an unrelated task does not clear an earlier supported blocker", async () => {
    const { outcome } = await run({
      planner: [planAnswer(WITH_CACHE), planAnswer(WITH_CACHE_LOW_LOGS), planAnswer(WITHOUT_CACHE)],
      critic: [criticAnswer(NO_ROLLBACK_ON_CACHE), CLEAN_AUDIT, CLEAN_AUDIT],
    });
    const key = "critic:weak_rollback:tune_cache:missing_rollback:tune_cache:";
    expect(outcome.rounds[1]!.carried_forward.map((f) => f.key)).toEqual([key]);
    expect(outcome.rounds[1]!.blocker_keys).toEqual([key]);
    expect(decisions(outcome)).toEqual([
      ["revise", null],
      ["revise", null],
      ["approve", null],
    ]);
  });

  it("an unchanged revision with a silent critic is not approved", async () => {
    const { outcome } = await run({ planner: [planAnswer(WITH_CACHE), planAnswer(WITH_CACHE)], critic: [criticAnswer(NO_ROLLBACK_ON_CACHE), CLEAN_AUDIT] });
    expect(outcome.escalation_reason).toBe("converged_stalled");
  });

  it("a blocker with uncheckable evidence is cleared by a later audit that does not repeat it", async () => {
    const { outcome } = await run({
      planner: [planAnswer(WITH_CACHE), planAnswer(WITH_CACHE_LOW_LOGS)],
      critic: [criticAnswer({ family: "feasibility" }), CLEAN_AUDIT],
    });
    expect(outcome.status).toBe("approved");
    expect(outcome.rounds[1]!.carried_forward).toEqual([]);
  });

  it("a carried blocker stays in force through a gate-blocked round where the critic does not run", async () => {
    const { outcome } = await run(
      {
        planner: [
          planAnswer(WITH_CACHE),
          planAnswer({ ...WITH_CACHE, tasks: WITH_CACHE.tasks.map((t) => (t.id === "migrate" ? { ...t, rollback: undefined } : t)) }),
        ],
        critic: [criticAnswer({ family: "feasibility" })],
      },
      {},
      { maxRounds: 2 },
    );
    expect(outcome.rounds[1]!.critic).toBeNull();
    expect(outcome.rounds[1]!.blocker_keys).toContain("critic:feasibility::other::");
  });

  it("a finding about the same claim on the same task but other facts is another blocker: it clears nothing", async () => {
    // add_index's rollback needs `orders.backup`, which nothing provides (supported, and a gate blocker too, so the
    // critic runs every round); `lock_token` is nothing it needs (uncheckable).
    const indexed = (extra: Parameters<typeof notify>[] = []) =>
      makePlan(
        [
          mutate("add_index", {
            mutates: ["orders"],
            produces: ["orders.index_report"],
            rollback: { trigger: "verify_index", action: "Drop the index", requires: ["orders.backup"], restores: ["orders"] },
          }),
          verify("verify_index", "add_index", "mutation_output", ["orders.index_report"]),
          ...extra.map((args) => notify(...args)),
        ],
        [hard("add_index", "verify_index")],
      );
    const claim = (fact: string) =>
      criticAnswer({ family: "unverified_dependencies", task_id: "add_index", evidence: { claim: "unestablished_fact", tasks: ["add_index"], facts: [fact] } });
    const P0 = indexed();
    const P1 = indexed([["announce"]]);
    const { outcome } = await run(
      {
        planner: [planAnswer(P0), planAnswer(P1), planAnswer(P1), planAnswer(P1)],
        critic: [claim("orders.backup"), claim("lock_token"), CLEAN_AUDIT, CLEAN_AUDIT],
      },
      {},
      { mode: "every-round" },
    );
    const gate = "rollback_credibility:rollback_requires_unestablished:add_index:orders.backup";
    const orders = "critic:unverified_dependencies:add_index:unestablished_fact:add_index:orders.backup";
    const lockToken = "critic:unverified_dependencies:add_index:unestablished_fact:add_index:lock_token";
    expect(outcome.rounds[0]!.critic!.findings[0]).toMatchObject({ key: orders, evidence_status: "supported" });
    expect(outcome.rounds[1]!.critic!.findings[0]).toMatchObject({ key: lockToken, evidence_status: "uncheckable" });
    expect(outcome.rounds[1]!.blocker_keys).toEqual([gate, lockToken, orders]);
    // A silent critic on the same plan clears the uncheckable blocker, never the supported one.
    expect(outcome.rounds[2]!.blocker_keys).toEqual([gate, orders]);
    expect(outcome.status).toBe("escalated");
    expect(decisions(outcome)).toEqual([
      ["revise", null],
      ["revise", null],
      ["revise", null],
      ["escalate", "converged_stalled"],
    ]);
  });

  it("a revision that removes the task a supported blocker names, and a later one that puts it back, do not escape it", async () => {
    // Round 1 blocks tune_cache's missing rollback (supported); round 2 drops tune_cache (the claim now names no task)
    // and a gate blocks it; round 3 restores round 1's plan and the critic says nothing. Code knows the defect.
    const dropped = { ...WITHOUT_CACHE, tasks: WITHOUT_CACHE.tasks.map((t) => (t.id === "migrate" ? { ...t, rollback: undefined } : t)) };
    const { outcome } = await run({
      planner: [planAnswer(WITH_CACHE), planAnswer(dropped), planAnswer(WITH_CACHE)],
      critic: [criticAnswer(NO_ROLLBACK_ON_CACHE), CLEAN_AUDIT],
    });
    const key = "critic:weak_rollback:tune_cache:missing_rollback:tune_cache:";
    expect(outcome.rounds[1]!.blocker_keys).not.toContain(key);
    expect(outcome.rounds[1]!.critic).toBeNull();
    expect(outcome.rounds[2]!.carried_forward.map((f) => [f.key, f.evidence_status])).toEqual([[key, "supported"]]);
    expect(outcome.rounds[2]!.blocker_keys).toContain(key);
    expect(outcome).toMatchObject({ status: "escalated", escalation_reason: "plan_oscillation_detected" });
  });

  it("a carried blocker whose task was renamed lapses as before, and the round records it with the old task id", async () => {
    const renamed = { ...WITH_CACHE, tasks: WITH_CACHE.tasks.map((t) => (t.id === "tune_cache" ? { ...t, id: "tune_cache_v2" } : t)) };
    const { outcome } = await run({ planner: [planAnswer(WITH_CACHE), planAnswer(renamed)], critic: [criticAnswer(NO_ROLLBACK_ON_CACHE), CLEAN_AUDIT] });
    const key = "critic:weak_rollback:tune_cache:missing_rollback:tune_cache:";
    expect(outcome.rounds[0]!.carry_forward_lapsed).toEqual([]);
    expect(outcome.rounds[1]!.carried_forward).toEqual([]);
    expect(outcome.rounds[1]!.carry_forward_lapsed).toEqual([{ key, task_id: "tune_cache" }]);
    expect(decisions(outcome)).toEqual([
      ["revise", null],
      ["approve", null],
    ]);
  });

  it("a carried blocker whose task is still there does not lapse: nothing is recorded", async () => {
    const { outcome } = await run(
      { planner: [planAnswer(WITH_CACHE), planAnswer(WITH_CACHE_LOW_LOGS)], critic: [criticAnswer(NO_ROLLBACK_ON_CACHE), CLEAN_AUDIT] },
      {},
      { maxRounds: 2 },
    );
    expect(outcome.rounds[1]!.carried_forward.map((f) => f.key)).toEqual(["critic:weak_rollback:tune_cache:missing_rollback:tune_cache:"]);
    expect(outcome.rounds[1]!.carry_forward_lapsed).toEqual([]);
  });

  it("a repeated blocker is not double-counted as carried", async () => {
    const { outcome } = await run(
      {
        planner: [planAnswer(WITH_CACHE), planAnswer(WITH_CACHE_LOW_LOGS)],
        critic: [criticAnswer(NO_ROLLBACK_ON_CACHE), criticAnswer(NO_ROLLBACK_ON_CACHE)],
      },
      {},
      { maxRounds: 2 },
    );
    expect(outcome.rounds[1]!.carried_forward).toEqual([]);
    expect(outcome.rounds[1]!.blocker_keys).toEqual(["critic:weak_rollback:tune_cache:missing_rollback:tune_cache:"]);
  });
});

describe("runEngine: modes", () => {
  it("every-round runs the critic on a gate-blocked plan too", async () => {
    const { outcome, client } = await run(
      { planner: [planAnswer(NO_ROLLBACK), planAnswer(SOUND)], critic: [CLEAN_AUDIT, CLEAN_AUDIT] },
      {},
      { mode: "every-round" },
    );
    expect(outcome.status).toBe("approved");
    expect(simExtraOf(client.requestsFor("critic")[0]!).gateFindings?.map((f) => f.code)).toEqual(["rollback_missing"]);
    expect(client.requestsFor("critic")[0]!.user).toContain(canonicalJson(outcome.rounds[0]!.gate_findings));
  });

  it("gates-only never calls the critic and approves a gate-clean plan", async () => {
    const { outcome, client } = await run({ planner: [planAnswer(SOUND)] }, {}, { mode: "gates-only" });
    expect(outcome.status).toBe("approved");
    expect(client.requestsFor("critic")).toHaveLength(0);
  });

  it("judges the round after repairs: an order-only defect is repaired without a revision", async () => {
    const announce = { id: "announce", description: "Tell the team", kind: "notify" };
    const announcedFirst = { tasks: [announce, ...SOUND.tasks], dependencies: [...SOUND.dependencies, { from: "verify_migrate", to: "announce" }] };
    const { outcome } = await run({ planner: [answer(announcedFirst)], critic: [CLEAN_AUDIT] });
    expect(outcome.status).toBe("approved");
    expect(outcome.rounds[0]!.repairs.map((r) => r.repair)).toEqual(["topological_reorder"]);
    expect(outcome.rounds[0]!.plan.tasks.map((t) => t.id)).toEqual(["snapshot", "migrate", "verify_migrate", "announce"]);
  });
});

describe("runEngine: prompts", () => {
  it("numbers each call by the round it belongs to", async () => {
    const byRound = (r: { round: number }) => (r.round === 0 ? criticAnswer(NO_ROLLBACK_ON_CACHE) : CLEAN_AUDIT);
    const { outcome, client } = await run({ planner: [planAnswer(WITH_CACHE), planAnswer(WITHOUT_CACHE)], critic: [byRound, byRound] });
    expect(outcome.status).toBe("approved");
    expect(client.requests.map((r) => `${r.role}:${r.round}`)).toEqual(["planner:0", "critic:0", "planner:1", "critic:1"]);
    expect(outcome.calls.map((c) => c.round)).toEqual([0, 0, 1, 1]);
  });

  it("the critic sees the goal and the plan as canonical JSON", async () => {
    const g = goal();
    const { client, outcome } = await run({ planner: [planAnswer(SOUND_REWORDED)], critic: [CLEAN_AUDIT] });
    const critic = client.requestsFor("critic")[0]!;
    expect(critic.user).toContain(canonicalJson(g));
    expect(critic.user).toContain(canonicalJson(outcome.rounds[0]!.plan));
    expect(critic.user).not.toContain("'id':");
    expect(simExtraOf(critic)).toMatchObject({ goal: g, plan: outcome.rounds[0]!.plan, gateFindings: [] });
  });
});

/** Each fail-open path of the predecessor engine (predecessor-notes §9.1) is closed here. */
describe("runEngine: the predecessor's fail-open paths", () => {
  it("§9.1.2: a miscased blocker in an eligible family still blocks a strict goal", async () => {
    const { outcome } = await run(
      { planner: [planAnswer(SOUND)], critic: [criticAnswer({ family: "Unsafe_Sequencing", severity: "BLOCKER" })] },
      {},
      { maxRounds: 1 },
    );
    expect(outcome.status).toBe("escalated");
    expect(outcome.rounds[0]!.critic!.findings[0]!.normalization).toEqual(["case_folded"]);
  });

  it("§9.1.3: every round's critic reviews the whole plan, not the revision's diff", async () => {
    // The revision changes one task (the log rotation's risk); a diff-scoped critic would see only that one.
    const script = { planner: [planAnswer(WITH_CACHE), planAnswer(WITH_CACHE_LOW_LOGS)], critic: [criticAnswer(NO_ROLLBACK_ON_CACHE), CLEAN_AUDIT] };
    const { outcome, client } = await run(script, {}, { maxRounds: 2 });
    const audits = client.requestsFor("critic");
    expect(audits).toHaveLength(2);
    for (const [i, audit] of audits.entries()) {
      expect(audit.user, `round ${i}`).toContain(canonicalJson(outcome.rounds[i]!.plan));
      expect(simExtraOf(audit).plan, `round ${i}`).toEqual(outcome.rounds[i]!.plan);
    }
    expect(outcome.rounds[1]!.plan.tasks.map((t) => t.id)).toContain("tune_cache");
  });

  it("§9.1.4: a supported critic blocker blocks a balanced goal", async () => {
    const { outcome } = await run(
      { planner: [planAnswer(WITH_CACHE)], critic: [criticAnswer(NO_ROLLBACK_ON_CACHE)] },
      { risk_tolerance: "balanced" },
      { maxRounds: 1 },
    );
    expect(outcome).toMatchObject({ status: "escalated", escalation_reason: "revision_cap_reached" });
  });

  it("§9.1.5: a blocker whose ordering claim the plan already satisfies does not block a strict goal", async () => {
    const hallucinated = { family: "unsafe_sequencing", task_id: "migrate", evidence: { claim: "misordered", tasks: ["migrate", "snapshot"], facts: [] } };
    const { outcome } = await run({ planner: [planAnswer(SOUND)], critic: [criticAnswer(hallucinated)] });
    expect(outcome.status).toBe("approved");
    expect(outcome.rounds[0]!.critic!.findings[0]).toMatchObject({ severity: "warning", evidence_status: "contradicted", raw: { severity: "blocker" } });
  });

  it("§9.1.9: a revision that changes structure is not a stall, even with the same blockers", async () => {
    const { outcome } = await run({ planner: [planAnswer(NO_ROLLBACK), planAnswer(NO_ROLLBACK_NOTIFIED)] }, {}, { maxRounds: 2 });
    expect(outcome.rounds[0]!.blocker_keys).toEqual(outcome.rounds[1]!.blocker_keys);
    expect(outcome.escalation_reasons).toEqual(["revision_cap_reached"]);
  });
});
