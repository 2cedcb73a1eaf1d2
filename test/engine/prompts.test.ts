import { describe, expect, it } from "vitest";
import { hashCanonical, sha256 } from "../../src/canonical.ts";
import { criticRequest } from "../../src/critic/critic.ts";
import { CRITIC_PROMPT, PLANNER_PROMPT, renderTemplate } from "../../src/critic/prompts/index.ts";
import { CriticEvidenceSchema, CriticFindingSchema } from "../../src/formats/findings.ts";
import { TaskSchema } from "../../src/formats/plan.ts";
import { PlannerOutputSchema, plannerRequest } from "../../src/planner/planner.ts";
import { ScriptedClient, simExtraOf } from "./scripted-client.ts";
import { goal, SOUND } from "./fixtures.ts";

type JsonSchema = { required?: string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema };

describe("prompt descriptors", () => {
  it("carry the sha256 of exactly the text and schema they hold", () => {
    for (const p of [CRITIC_PROMPT, PLANNER_PROMPT]) {
      expect(p.system_sha256).toBe(sha256(p.system));
      expect(p.schema_sha256).toBe(hashCanonical(p.schema));
      for (const t of Object.values(p.templates)) expect(t.sha256).toBe(sha256(t.text));
    }
  });

  it("the critic's output schema has the fields of CriticOutputSchema, all required", () => {
    const item = (CRITIC_PROMPT.schema as JsonSchema).properties!.findings!.items!;
    expect([...item.required!].sort()).toEqual(Object.keys(CriticFindingSchema.shape).sort());
    expect([...item.properties!.evidence!.required!].sort()).toEqual(Object.keys(CriticEvidenceSchema.shape).sort());
  });

  it("the planner's output schema names every task field of the plan format but attributes (asked for only when packs declare some)", () => {
    const task = (PLANNER_PROMPT.schema as JsonSchema).properties!.tasks!.items!;
    expect(Object.keys(task.properties!).sort()).toEqual(
      Object.keys(TaskSchema.shape)
        .filter((k) => k !== "attributes")
        .sort(),
    );
  });

  it("the critic's system prompt states the severity rules and every evidence claim", () => {
    for (const word of [
      "blocker",
      "warning",
      "zero blockers",
      "misordered",
      "missing_rollback",
      "missing_verification",
      "unestablished_fact",
      "rollback_requires_destroyed",
      "partial_restore",
      "verification_misordered",
      "tool_unavailable",
    ]) {
      expect(CRITIC_PROMPT.system).toContain(word);
    }
  });
});

describe("renderTemplate", () => {
  it("fills placeholders once, leaving braces inside values alone", () => {
    expect(renderTemplate("a {{x}} b {{y}}", { x: "{{y}}", y: "$&" })).toBe("a {{y}} b $&");
  });

  it("refuses a placeholder without a value", () => {
    expect(() => renderTemplate("{{missing}}", {})).toThrow(/missing/);
  });
});

describe("requests", () => {
  const client = new ScriptedClient({});
  const call = { client, itemId: "i", trial: 1, round: 2 };

  it("planner requests render the mode's template and carry the extra the sim reads", () => {
    const g = goal();
    const decompose = plannerRequest(g, "decompose", call);
    expect(decompose).toMatchObject({ role: "planner", round: 2, userTemplate: PLANNER_PROMPT.templates.decompose.text });
    expect(simExtraOf(decompose)).toEqual({ goal: g, mode: "decompose" });
    expect(decompose.user).not.toContain("{{");
    const revise = plannerRequest(g, "revise", call, { plan: SOUND, findings: [] });
    expect(revise.user).not.toContain("{{");
    expect(simExtraOf(revise)).toEqual({ goal: g, plan: SOUND, findings: [], mode: "revise" });
  });

  it("the critic request renders fully", () => {
    const r = criticRequest(goal(), SOUND, [], call);
    expect(r.user).not.toContain("{{");
    expect(r.schema).toBe(CRITIC_PROMPT.schema);
  });

  it("the planner may write a plan header; it is accepted and restamped", () => {
    expect(PlannerOutputSchema.safeParse({ ...SOUND, id: "anything", goal_id: "other" }).success).toBe(true);
    expect(PlannerOutputSchema.safeParse({ tasks: SOUND.tasks }).success).toBe(true);
    expect(PlannerOutputSchema.safeParse({ tasks: SOUND.tasks, surprise: 1 }).success).toBe(false);
  });
});
