import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Goal } from "../../src/formats/goal.ts";
import type { Plan } from "../../src/formats/plan.ts";
import { runGates } from "../../src/gates/index.ts";
import { loadPacks } from "../../src/packs/load.ts";
import { SHIPPED_PACKS_DIR } from "../../harness/packs.ts";
import { viewTypes, planView } from "../../src/packs/view.ts";
import type { CelType } from "../../src/packs/types.ts";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { anyPlanOf, prose } from "../helpers/arbitrary-plans.ts";
import { makeGoal, makePlan } from "../helpers/plans.ts";

const packs = loadPacks(readdirSync(SHIPPED_PACKS_DIR).map((d) => join(SHIPPED_PACKS_DIR, d)));
const NAMES = ["f0", "f1", "out", "db", "maintenance_window_booked", "deploy.log"];

/** Values that make the shipped rules fire, miss and fail; of every attribute type, some of them mistyped. */
const attributeValue = fc.oneof(
  fc.constantFrom("0.0.0.0/0", "203.0.113.0/24", "*", "allUsers", "none", "kms", "http", "https", "disable", "enable", "revoke", "deploy", "db", "signature"),
  fc.constantFrom(0, 12, 800, 12000),
  fc.boolean(),
  fc.subarray(["*", "s3:GetObject", "iam:*", "signature", "row_count", "out", "deploy.log"], { maxLength: 3 }),
);
const declared = [...new Set(packs.flatMap((p) => Object.keys(p.attributes)))];
const attributes = fc.option(fc.dictionary(fc.constantFrom(...declared), attributeValue, { maxKeys: 4 }), { nil: undefined });

const anyPlan = anyPlanOf({ names: NAMES, attributes, maxTasks: 7 });

const anyGoal = fc
  .record({ facts: fc.subarray(NAMES, { maxLength: 2 }), environment: fc.constantFrom("production", "staging", undefined) })
  .map(({ facts, environment }) => makeGoal(facts, { constraints: { facts, ...(environment ? { environment } : {}) } }));

/** Every prose field rewritten: the goal's title and description, each task's description, each rollback's action, the plan's id. */
function rewriteProse(goal: Goal, plan: Plan, text: string): [Goal, Plan] {
  return [
    { ...goal, title: `${text} ${goal.title}`, description: `${goal.description} ${text}` },
    {
      ...plan,
      id: `${plan.id}-${text.length}`,
      tasks: plan.tasks.map((t) => ({ ...t, description: `${text} ${t.description}`, ...(t.rollback ? { rollback: { ...t.rollback, action: text } } : {}) })),
    },
  ];
}

/** Whether a view value has its declared static type (null allowed where nullable). */
function conforms(value: unknown, type: CelType): boolean {
  if (value === null) return type.nullable === true || type.kind === "null" || type.kind === "dyn";
  switch (type.kind) {
    case "bool":
      return typeof value === "boolean";
    case "int":
      return typeof value === "bigint";
    case "double":
      return typeof value === "number";
    case "string":
      return typeof value === "string";
    case "list":
      return Array.isArray(value) && value.every((v) => conforms(v, type.of));
    case "object":
      return typeof value === "object" && Object.keys(value as object).sort().join() === Object.keys(type.fields).sort().join() && Object.entries(type.fields).every(([k, t]) => conforms((value as Record<string, unknown>)[k], t));
    case "map":
      return typeof value === "object" && !Array.isArray(value) && Object.entries(value as object).every(([k, v]) => conforms(k, type.key) && conforms(v, type.of));
    default:
      return type.kind === "dyn";
  }
}

describe("the shipped finops rule deletion_without_grace_period", () => {
  it("fires exactly where its definition says: a task that destroys, with no notify and then a wait before it", () => {
    const finops = packs.find((p) => p.name === "finops")!;
    const kinds = fc.constantFrom("notify", "wait", "mutate", "verify");
    const anyOrder = fc.array(fc.record({ kind: kinds, destroys: fc.boolean(), group: fc.constantFrom(undefined, "g") }), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(anyOrder, (specs) => {
        const plan = makePlan(specs.map((s, i) => ({ id: `t${i}`, description: "d", kind: s.kind, destroys: s.destroys ? ["r"] : [], ...(s.group ? { parallel_group: s.group } : {}) })));
        const steps = planView(makeGoal([]), plan, {}).tasks.map((t) => t.step as bigint);
        const expected = specs.flatMap((s, i) => {
          const before = (k: string, lo: bigint, hi: bigint) => specs.some((o, j) => o.kind === k && steps[j]! > lo && steps[j]! < hi);
          const graced = specs.some((n, j) => n.kind === "notify" && steps[j]! < steps[i]! && before("wait", steps[j]!, steps[i]!));
          return s.destroys && !graced ? [`t${i}`] : [];
        });
        const fired = runGates(makeGoal([]), plan, { packs: [finops] }).filter((f) => f.code === "deletion_without_grace_period").map((f) => f.task_id);
        expect(fired).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });
});

describe("pack rules never read prose", () => {
  it("rewriting every prose field never moves a pack finding (shipped packs, any plan)", () => {
    fc.assert(
      fc.property(anyGoal, anyPlan, prose, (goal, plan, text) => {
        const before = runGates(goal, plan, { packs }).filter((f) => f.gate.startsWith("pack."));
        const [g2, p2] = rewriteProse(goal, plan, text);
        expect(runGates(g2, p2, { packs }).filter((f) => f.gate.startsWith("pack."))).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });

  it("the random plans do reach the rules: most of the shipped rules fire on some of them", () => {
    const fired = new Set<string>();
    fc.assert(
      fc.property(anyGoal, anyPlan, (goal, plan) => {
        for (const f of runGates(goal, plan, { packs })) if (f.gate.startsWith("pack.")) fired.add(f.code);
      }),
      { numRuns: 300, seed: 7 },
    );
    const rules = packs.flatMap((p) => p.rules.map((r) => r.code));
    expect(rules.filter((r) => fired.has(r)).length).toBeGreaterThanOrEqual(rules.length - 4);
  });

  it("the view has the types the checker assumes, for every pack and any plan", () => {
    fc.assert(
      fc.property(anyGoal, anyPlan, fc.constantFrom(...packs), (goal, plan, pack) => {
        const types = viewTypes(pack.attributes);
        const view = planView(goal, plan, pack.attributes);
        expect(conforms(view.goal, types.goal)).toBe(true);
        expect(conforms(view.plan, types.plan)).toBe(true);
        for (const t of view.tasks) expect(conforms(t, types.task)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
