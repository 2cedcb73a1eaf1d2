import { describe, expect, it } from "vitest";
import { PLANNER_PROMPT } from "../../src/critic/prompts/index.ts";
import { runCriticTrial } from "../../src/loop/critic-trial.ts";
import { runEngine } from "../../src/loop/engine.ts";
import { loadPack } from "../../src/packs/load.ts";
import { plannerRequest } from "../../src/planner/planner.ts";
import { CLEAN_AUDIT, goal, planAnswer, SOUND } from "../engine/fixtures.ts";
import { ScriptedClient } from "../engine/scripted-client.ts";
import { rulePack, writePack } from "./helpers.ts";

const pack = loadPack(writePack(rulePack()));
const opened = { ...SOUND, tasks: SOUND.tasks.map((t) => (t.id === "migrate" ? { ...t, attributes: { open: true } } : t)) };

describe("packs in the engine", () => {
  it("the loop gates every round with the packs: a pack blocker is revised away like a gate blocker", async () => {
    const client = new ScriptedClient({ planner: [planAnswer(opened), planAnswer(SOUND)], critic: [CLEAN_AUDIT] });
    const outcome = await runEngine(goal(), { client, itemId: "item", trial: 0 }, { packs: [pack] });
    expect(outcome.status).toBe("approved");
    expect(outcome.rounds.map((r) => r.blocker_keys)).toEqual([["pack.test:opened:migrate:"], []]);
    expect(outcome.rounds[0]!.critic).toBeNull();
    expect(client.requestsFor("planner")[1]!.user).toContain("pack.test:opened:migrate:");
  });

  it("without packs the same plan approves at once", async () => {
    const client = new ScriptedClient({ planner: [planAnswer(opened)], critic: [CLEAN_AUDIT] });
    expect((await runEngine(goal(), { client, itemId: "item", trial: 0 })).status).toBe("approved");
  });

  it("critic-only trials see pack findings, in the gate findings the critic is shown too", async () => {
    const client = new ScriptedClient({ critic: [CLEAN_AUDIT] });
    const fixture = { id: "f", goal: goal(), plan: opened } as Parameters<typeof runCriticTrial>[0];
    const outcome = await runCriticTrial(fixture, { client, itemId: "f", trial: 0 }, [pack]);
    expect(outcome.verdict).toBe("escalate");
    expect(outcome.rounds[0]!.gate_findings.map((f) => f.key)).toEqual(["pack.test:opened:migrate:"]);
    expect(client.requestsFor("critic")[0]!.user).toContain("pack.test:opened:migrate:");
  });

  it("the planner is asked for the attributes the packs declare, and only then", async () => {
    const call = { client: new ScriptedClient({}), itemId: "i", trial: 0, round: 0 };
    const plain = plannerRequest(goal(), "decompose", call);
    expect([plain.system, plain.schema]).toEqual([PLANNER_PROMPT.system, PLANNER_PROMPT.schema]);
    const asked = plannerRequest(goal(), "decompose", { ...call, attributes: pack.attributes });
    expect(asked.system.startsWith(PLANNER_PROMPT.system)).toBe(true);
    expect(asked.system).toContain('- "open" (true or false): Whether the task opens something');
    const task = (asked.schema as { properties: { tasks: { items: { properties: Record<string, unknown> } } } }).properties.tasks.items.properties;
    expect(task.attributes).toEqual({ type: ["object", "null"], additionalProperties: false, properties: { open: { type: ["boolean", "null"] } } });
    const client = new ScriptedClient({ planner: [planAnswer(SOUND)], critic: [CLEAN_AUDIT] });
    await runEngine(goal(), { client, itemId: "item", trial: 0 }, { packs: [pack] });
    expect(client.requestsFor("planner")[0]!.system).toBe(asked.system);
  });
});
