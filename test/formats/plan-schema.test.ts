/**
 * One source of truth for task ids: what `fieldtest schema plan` publishes and what the
 * schema_valid gate enforces agree, both ways (docs/design.md §3). The published rules are read
 * from the JSON Schema itself, so a change to either side alone fails here.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonSchemaOf } from "../../harness/cli/commands/schema.ts";
import { PlanSchema } from "../../src/formats/plan.ts";
import { runGates } from "../../src/gates/index.ts";
import { makeGoal, makePlan, read } from "../helpers/plans.ts";

interface IdRules {
  type: string;
  minLength: number;
  pattern: string;
  not: { const: string };
}

const idRules = (() => {
  const schema = jsonSchemaOf("plan") as { properties: { tasks: { items: { properties: { id: IdRules } } } } };
  return schema.properties.tasks.items.properties.id;
})();

/** JSON Schema's verdict on an id, keyword by keyword (the test below pins which keywords there are). */
function schemaAccepts(id: string): boolean {
  return id.length >= idRules.minLength && new RegExp(idRules.pattern, "u").test(id) && id !== idRules.not.const;
}

const goal = makeGoal();
/** The schema_valid findings about task ids: the gate's own rules, nothing else of the plan broken. */
const idFindings = (ids: readonly string[]) =>
  runGates(goal, makePlan(ids.map((id) => read(id)))).filter((f) => f.gate === "schema_valid" && /^tasks\[\d+\]\.id: /.test(f.message));

describe("task ids: `fieldtest schema plan` and the schema_valid gate agree", () => {
  it("publishes the gate's pattern and its reserved name, and nothing else about ids", () => {
    expect(Object.keys(idRules).sort()).toEqual(["description", "minLength", "not", "pattern", "type"]);
    expect([idRules.type, idRules.pattern, idRules.not]).toEqual(["string", "^[a-z0-9][a-z0-9_.-]*$", { const: "env" }]);
  });

  it("the gate accepts every id list the JSON Schema allows (ids unique, as the gate also asks)", () => {
    const valid = fc.stringMatching(new RegExp(idRules.pattern)).filter(schemaAccepts);
    fc.assert(
      fc.property(fc.uniqueArray(valid, { minLength: 1, maxLength: 6 }), (ids) => {
        expect(idFindings(ids)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("an id the gate accepts validates against the JSON Schema, and one it rejects does not", () => {
    const chars = fc.constantFrom(..."abcz09_.-AZ /é\u0000".split(""), "env");
    const anyId = fc.oneof(
      fc.stringMatching(new RegExp(idRules.pattern)),
      fc.array(chars, { minLength: 1, maxLength: 6 }).map((p) => p.join("")),
      fc.string({ minLength: 1, maxLength: 8 }),
    );
    fc.assert(
      fc.property(anyId, (id) => {
        expect(idFindings([id]).length === 0).toBe(schemaAccepts(id));
      }),
      { numRuns: 1000 },
    );
  });

  it("the parse itself does not reject a bad id: inside the loop it is the gate's schema_invalid finding", () => {
    const plan = { id: "p", goal_id: goal.id, tasks: [{ id: "Bad Id", description: "d", kind: "read" }] };
    expect(PlanSchema.safeParse(plan).success).toBe(true);
    expect(idFindings(["Bad Id"]).map((f) => f.code)).toEqual(["schema_invalid"]);
    expect(idFindings(["env"]).map((f) => f.code)).toEqual(["schema_invalid"]);
  });
});
