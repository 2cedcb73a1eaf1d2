import { describe, expect, it } from "vitest";
import type { Fixture } from "../../src/formats/fixture.ts";
import { FixtureSchema } from "../../src/formats/fixture.ts";
import { runCriticTrial } from "../../src/loop/critic-trial.ts";
import { runEngine, type EngineOptions } from "../../src/loop/engine.ts";
import { criticFinding, goal, SOUND } from "./fixtures.ts";
import { says, unavailable503, useScriptedEndpoint, type RoleScript } from "./scripted-server.ts";

/**
 * The engine through the real client against a scripted OpenAI-compatible server: what reaches
 * the wire and what the records say about it (docs/design.md §5, §6 "model failure versus
 * infrastructure failure", and the per-goal budget).
 */

const endpoint = useScriptedEndpoint();
const PLAN = { tasks: SOUND.tasks, dependencies: SOUND.dependencies };
const WRONG_SHAPE = '{"findings":[{"nope":1}]}';

async function engine(script: { planner: RoleScript; critic?: RoleScript }, options: EngineOptions = {}) {
  const e = await endpoint(script);
  const outcome = await runEngine(goal(), { client: e.client, itemId: "item", trial: 0 }, options);
  return { outcome, ...e };
}

async function criticOnly(critic: RoleScript) {
  const e = await endpoint({ critic });
  const fixture: Fixture = FixtureSchema.parse({
    id: "fx",
    description: "a sound plan",
    group: "g",
    goal: goal(),
    plan: SOUND,
    expected_verdict: { strict: "approve", balanced: "approve" },
    expected_critic_verdict: { strict: "pass", balanced: "pass" },
  });
  return { outcome: await runCriticTrial(fixture, { client: e.client, itemId: "fx", trial: 0 }), ...e };
}

describe("a critic answer without a well-formed finding, or with a malformed blocker, is never a clean audit", () => {
  it("every finding malformed: fed back like any invalid output, then critic_unavailable (invalid_output), raw text kept", async () => {
    const { outcome, received } = await engine({ planner: [says(PLAN)], critic: [says(WRONG_SHAPE)] });
    expect(received("critic")).toHaveLength(3);
    expect(outcome.rounds[0]!.critic).toMatchObject({ outcome: "critic_unavailable", reason: "invalid_output", raw_text: WRONG_SHAPE, findings: [] });
    expect(outcome).toMatchObject({ status: "escalated", escalation_reasons: ["critic_unavailable"], verdict: "escalate", error: null });
    expect(outcome.calls.filter((c) => c.role === "critic").map((c) => c.outcome)).toEqual(["invalid_output", "invalid_output", "invalid_output"]);
  });

  it("a critic-only trial on the same answer: critic_verdict unavailable, not pass", async () => {
    const { outcome } = await criticOnly([says('{"findings": ["looks fine", 3]}')]);
    expect(outcome).toMatchObject({ critic_verdict: "unavailable", status: "escalated", escalation_reasons: ["critic_unavailable"] });
  });

  it("a malformed blocker beside a well-formed finding fails closed: fed back like any invalid output, then critic_unavailable (invalid_output)", async () => {
    const mixed = { findings: [criticFinding({ family: "risk", severity: "warning" }), { family: "weak_rollback", severity: " Blocker", message: "" }] };
    const { outcome, received } = await engine({ planner: [says(PLAN)], critic: [says(mixed)] });
    expect(received("critic")).toHaveLength(3);
    expect(outcome.rounds[0]!.critic).toMatchObject({ outcome: "critic_unavailable", reason: "invalid_output", findings: [], malformed_findings: 1 });
    expect(outcome.calls.find((c) => c.role === "critic")!.validation_error).toContain("a blocker is malformed");
    expect(outcome).toMatchObject({ status: "escalated", escalation_reasons: ["critic_unavailable"], error: null });
  });

  it("a malformed warning beside a well-formed finding still just drops, without a retry", async () => {
    const mixed = { findings: [{ family: "weak_rollback", severity: "warning", message: "" }, criticFinding({ family: "risk", severity: "warning" })] };
    const { outcome, received } = await engine({ planner: [says(PLAN)], critic: [says(mixed)] });
    expect(received("critic")).toHaveLength(1);
    expect(outcome.rounds[0]!.critic).toMatchObject({ outcome: "ok", malformed_findings: 1 });
    expect(outcome.status).toBe("approved");
  });

  it("a malformed finding beside a well-formed one costs neither the audit nor a retry", async () => {
    const mixed = { findings: [{ nope: 1 }, criticFinding({ family: "risk", severity: "warning" })] };
    const { outcome, received } = await engine({ planner: [says(PLAN)], critic: [says(mixed)] });
    expect(received("critic")).toHaveLength(1);
    expect(outcome.rounds[0]!.critic).toMatchObject({ outcome: "ok", malformed_findings: 1 });
    expect(outcome.status).toBe("approved");
  });
});

describe("a provider that never answers is an infrastructure error, not a measured escalation", () => {
  it("five 503s in a row on the critic: reason provider_error, status error, the engine still fails closed", async () => {
    const { outcome, received, server } = await engine({ planner: [says(PLAN)], critic: [unavailable503] });
    expect(received("critic")).toHaveLength(5);
    const critic = outcome.calls.find((c) => c.role === "critic")!;
    expect(critic.transport_attempts.map((a) => a.http_status)).toEqual([503, 503, 503, 503, 503]);
    expect(outcome.rounds[0]!.critic).toMatchObject({ outcome: "critic_unavailable", reason: "provider_error" });
    expect(outcome.rounds[0]!.decision).toBe("escalate");
    expect(outcome).toMatchObject({ status: "error", verdict: "escalate", escalation_reasons: ["critic_unavailable"] });
    expect(outcome.error).toContain(`${server.url}/v1`);
    expect(outcome.error).toContain("HTTP 503");
  });

  it("the same on the planner: status error with planner_unavailable, no round", async () => {
    const { outcome } = await engine({ planner: [unavailable503] });
    expect(outcome).toMatchObject({ status: "error", verdict: "escalate", escalation_reasons: ["planner_unavailable"], rounds: [] });
    expect(outcome.error).toMatch(/planner call to http:\/\/127\.0\.0\.1:\d+\/v1 failed after 5 attempt\(s\)/);
  });

  it("a critic-only trial on a dead critic: status error, critic_verdict unavailable", async () => {
    const { outcome } = await criticOnly([unavailable503]);
    expect(outcome).toMatchObject({ status: "error", critic_verdict: "unavailable", verdict: "escalate", escalation_reasons: ["critic_unavailable"] });
  });

  it("a planner that answers badly every time is the model's failure: status escalated, no error", async () => {
    const { outcome, received } = await engine({ planner: [says('{"tasks": "not a list"}')] });
    expect(received("planner")).toHaveLength(3);
    expect(outcome).toMatchObject({ status: "escalated", escalation_reasons: ["planner_unavailable"], error: null });
  });
});

describe("the per-goal budget counts every request sent", () => {
  it("budget {calls: 1} sends one planner request, not one per structured-output attempt", async () => {
    const { outcome, received } = await engine({ planner: [says('{"tasks": "not a list"}')] }, { budget: { calls: 1 } });
    expect(received("planner")).toHaveLength(1);
    expect(outcome).toMatchObject({ status: "escalated", escalation_reasons: ["budget_exceeded"] });
  });

  it("transport retries count too: budget {calls: 2} against a failing endpoint sends two", async () => {
    const { outcome, received } = await engine({ planner: [unavailable503] }, { budget: { calls: 2 } });
    expect(received("planner")).toHaveLength(2);
    expect(outcome.escalation_reasons).toEqual(["budget_exceeded"]);
  });

  it("the critic's retries count against the same budget as the planner's", async () => {
    const { outcome, received } = await engine({ planner: [says(PLAN)], critic: [says(WRONG_SHAPE)] }, { budget: { calls: 2 } });
    expect([received("planner").length, received("critic").length]).toEqual([1, 1]);
    expect(outcome.rounds[0]!.critic).toMatchObject({ outcome: "critic_unavailable", reason: "budget_exceeded" });
    expect(outcome.escalation_reasons).toEqual(["budget_exceeded"]);
  });
});
