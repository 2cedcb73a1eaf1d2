import { describe, expect, it } from "vitest";
import { FixtureSchema, type Fixture } from "../../src/formats/fixture.ts";
import type { Plan } from "../../src/formats/plan.ts";
import { runCriticTrial } from "../../src/loop/critic-trial.ts";
import { CLEAN_AUDIT, criticAnswer, goal, NO_ROLLBACK, NO_ROLLBACK_ON_CACHE, SOUND, WITH_CACHE } from "./fixtures.ts";
import { answer, ScriptedClient, simExtraOf, type ScriptedAnswer } from "./scripted-client.ts";

function fixture(plan: Plan, tolerance: "strict" | "balanced" = "strict", replan: "patch" | "abort" = "patch"): Fixture {
  return FixtureSchema.parse({
    id: "fx",
    description: "a fixture",
    group: "g",
    goal: goal({ risk_tolerance: tolerance, replan_policy: replan }),
    plan,
    expected_verdict: { strict: "escalate", balanced: "escalate" },
    expected_critic_verdict: { strict: "block", balanced: "block" },
  });
}

async function trial(fx: Fixture, critic: ScriptedAnswer) {
  const client = new ScriptedClient({ critic: [critic] });
  const outcome = await runCriticTrial(fx, { client, itemId: fx.id, trial: 3 });
  return { outcome, client };
}

describe("runCriticTrial", () => {
  it("a clean plan and a clean audit: critic pass, engine approve", async () => {
    const { outcome } = await trial(fixture(SOUND), CLEAN_AUDIT);
    expect(outcome).toMatchObject({ critic_verdict: "pass", verdict: "approve", status: "approved", escalation_reasons: [] });
    expect(outcome.rounds).toHaveLength(1);
  });

  it("the critic runs whatever the gates say, with the gate findings and the fixture in its context", async () => {
    const fx = fixture(NO_ROLLBACK);
    const { outcome, client } = await trial(fx, CLEAN_AUDIT);
    expect(outcome).toMatchObject({ critic_verdict: "pass", verdict: "escalate", escalation_reason: "gate_blocked" });
    const request = client.requests[0]!;
    expect(request).toMatchObject({ role: "critic", itemId: "fx", trial: 3, round: 0 });
    expect(simExtraOf(request).fixture).toBe(fx);
    expect(simExtraOf(request).gateFindings?.map((f) => f.code)).toEqual(["rollback_missing"]);
    expect(outcome.rounds[0]!.repairs).toEqual([]);
    expect(outcome.rounds[0]!.plan).toBe(fx.plan);
  });

  it("critic_verdict block follows the fixture goal's tolerance", async () => {
    const supported = await trial(fixture(WITH_CACHE, "balanced"), criticAnswer(NO_ROLLBACK_ON_CACHE));
    expect(supported.outcome).toMatchObject({ critic_verdict: "block", verdict: "escalate" });
    const uncheckableStrict = await trial(fixture(SOUND, "strict"), criticAnswer({ family: "feasibility" }));
    expect(uncheckableStrict.outcome.critic_verdict).toBe("block");
    const uncheckableBalanced = await trial(fixture(SOUND, "balanced"), criticAnswer({ family: "feasibility" }));
    expect(uncheckableBalanced.outcome).toMatchObject({ critic_verdict: "pass", verdict: "approve" });
  });

  it("an unavailable critic: critic_verdict unavailable, verdict escalate", async () => {
    const { outcome } = await trial(fixture(SOUND), answer("no json here"));
    expect(outcome).toMatchObject({ critic_verdict: "unavailable", verdict: "escalate", escalation_reason: "critic_unavailable" });
  });

  it("an escalated frozen plan names who blocked it, never a loop reason", async () => {
    const blocker = criticAnswer(NO_ROLLBACK_ON_CACHE);
    expect((await trial(fixture(NO_ROLLBACK), CLEAN_AUDIT)).outcome.escalation_reasons).toEqual(["gate_blocked"]);
    expect((await trial(fixture(WITH_CACHE), blocker)).outcome.escalation_reasons).toEqual(["critic_blocked"]);
    const both = await trial(fixture(NO_ROLLBACK), criticAnswer({ family: "feasibility" }));
    expect(both.outcome).toMatchObject({ escalation_reason: "gate_blocked", escalation_reasons: ["gate_blocked", "critic_blocked"] });
    expect((await trial(fixture(NO_ROLLBACK, "strict", "abort"), CLEAN_AUDIT)).outcome.escalation_reasons).toEqual(["gate_blocked"]);
    expect((await trial(fixture(NO_ROLLBACK), answer("no json here"))).outcome.escalation_reasons).toEqual(["critic_unavailable"]);
    expect((await trial(fixture(NO_ROLLBACK), answer("no json here"))).outcome.rounds[0]!.reason).toBe("critic_unavailable");
  });
});
