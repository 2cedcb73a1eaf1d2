import { describe, expect, it } from "vitest";
import { runGates } from "../../src/gates/index.ts";
import { applyRepairs } from "../../src/gates/repairs.ts";
import { judgePackCanaries } from "../../src/packs/canary.ts";
import { packFindings } from "../../src/packs/evaluate.ts";
import { loadPack } from "../../src/packs/load.ts";
import { hard, makeGoal, makePlan, mutate, read } from "../helpers/plans.ts";
import { rulePack, writePack } from "./helpers.ts";

const pack = loadPack(writePack(rulePack()));
const goal = makeGoal();

describe("pack findings", () => {
  it("are gate findings: origin gate, severity blocker, gate pack.<name>, key pack.<name>:code:task:", () => {
    const plan = makePlan([mutate("a", { attributes: { open: true } }), mutate("b", { attributes: { open: false } }), mutate("c")]);
    expect(packFindings(goal, plan, [pack])).toEqual([
      { origin: "gate", gate: "pack.test", code: "opened", family: "risk", severity: "blocker", task_id: "a", message: "task a opens it", key: "pack.test:opened:a:" },
    ]);
  });

  it("run at the single gates entry point, after the built-in gates, and only when enabled", () => {
    const plan = makePlan([mutate("a", { risk: "high", attributes: { open: true } })]);
    const codes = runGates(goal, plan, { packs: [pack] }).map((f) => f.code);
    expect(codes).toEqual(["verification_missing", "rollback_missing", "opened"]);
    expect(runGates(goal, plan).map((f) => f.code)).toEqual(["verification_missing", "rollback_missing"]);
  });

  it("a plan rule reports no task", () => {
    const planPack = loadPack(
      writePack(
        rulePack({
          rule: { each: "plan", when: "!plan.tasks.exists(t, t.kind == 'notify')", message: "nobody is told ({{size(plan.tasks)}} tasks)" },
          cases: [
            { name: "silent", note: "n", fires: ["opened"], plan: { id: "p", goal_id: "canary", tasks: [{ id: "a", description: "A", kind: "read" }] } },
            { name: "told", note: "n", silent_for: ["opened"], plan: { id: "p", goal_id: "canary", tasks: [{ id: "a", description: "A", kind: "notify" }] } },
          ],
        }),
      ),
    );
    expect(packFindings(goal, makePlan([read("a")]), [planPack])).toEqual([expect.objectContaining({ task_id: null, key: "pack.test:opened::", message: "nobody is told (1 tasks)" })]);
  });

  it("fail closed: a rule that cannot be judged blocks and says why", () => {
    const fragile = loadPack(writePack(rulePack({ rule: { when: "task.target.startsWith('prod')" }, cases: [
      { name: "prod", note: "n", fires: ["opened"], plan: { id: "p", goal_id: "canary", tasks: [{ id: "a", description: "A", kind: "read", target: "prod-db" }] } },
      { name: "dev", note: "n", silent_for: ["opened"], plan: { id: "p", goal_id: "canary", tasks: [{ id: "a", description: "A", kind: "read", target: "dev-db" }] } },
    ] })));
    const [f] = packFindings(goal, makePlan([read("a")]), [fragile]);
    expect(f).toMatchObject({ code: "opened", task_id: "a", severity: "blocker", key: "pack.test:opened:a:error" });
    expect(f!.message).toMatch(/rule opened of pack test could not be judged on task a: .*startsWith/);
  });

  it("a message placeholder that cannot be rendered says why, never a silent placeholder", () => {
    const loud = loadPack(writePack(rulePack({ rule: { message: "task {{task.id}} opens {{1/0}}" } })));
    const [f] = packFindings(goal, makePlan([mutate("a", { attributes: { open: true } })]), [loud]);
    expect(f!.message).toBe("task a opens (error: int divide by zero)");
  });

  it("an attribute of the wrong type reads as absent and is reported, so a rule can never be dodged by a type", () => {
    const findings = packFindings(goal, makePlan([mutate("a", { attributes: { open: "true" } })]), [pack]);
    expect(findings).toEqual([expect.objectContaining({ code: "attribute_mistyped", task_id: "a", family: "feasibility", key: "pack.test:attribute_mistyped:a:open", message: 'task a gives attribute open as "true"; pack test reads it as boolean' })]);
  });

  it("an attribute name that is a slip for a declared one is reported, so a rule can never be dodged by a name either", () => {
    const cost = loadPack(writePack(rulePack({ manifest: { name: "cost", attributes: { monthly_cost_delta_usd: { type: "number", description: "d" }, open: { type: "boolean", description: "o" } } } })));
    const slips = (attributes: Record<string, unknown>) => packFindings(goal, makePlan([mutate("a", { attributes: attributes as never })]), [cost]).filter((f) => f.code === "attribute_misnamed");
    expect(slips({ monthly_cost_delta: 12000 })).toEqual([
      expect.objectContaining({ task_id: "a", family: "feasibility", severity: "blocker", key: "pack.cost:attribute_misnamed:a:monthly_cost_delta", message: "task a gives attribute monthly_cost_delta, which no enabled pack declares; pack cost reads monthly_cost_delta_usd" }),
    ]);
    for (const slip of ["monthlycostdeltausd", "monthly_cost_detla_usd", "monthly_cost_delta_usd_est", "opne"]) expect(slips({ [slip]: 1 }), slip).toHaveLength(slip === "opne" ? 0 : 1);
    // Names that are not slips, and the declared names themselves, say nothing.
    expect(slips({ owner: "x", region: "eu", monthly_cost_delta_usd: 5, open: true })).toEqual([]);
    // Other names near a short declared one are other names, not slips (the shipped packs' short names).
    const near = loadPack(writePack(rulePack({ manifest: { name: "near", attributes: Object.fromEntries(["auth", "checks", "encryption", "schema_change", "backup_of", "commitment_months", "protocol", "open"].map((n) => [n, { type: n === "open" ? "boolean" : "string", description: "d" }])) } })));
    const others = ["author", "oauth", "checksum", "encryption_key", "encryption_at_rest", "schema", "backup", "commitment", "protocol_version"];
    expect(packFindings(goal, makePlan([mutate("a", { attributes: Object.fromEntries(others.map((n) => [n, "x"])) as never })]), [near]).filter((f) => f.code === "attribute_misnamed")).toEqual([]);
    expect(packFindings(goal, makePlan([mutate("a", { attributes: { encryptoin: "x" } as never })]), [near]).map((f) => f.message)).toContain("task a gives attribute encryptoin, which no enabled pack declares; pack near reads encryption");
    // A name another enabled pack declares is that pack's, not a slip.
    const other = loadPack(writePack(rulePack({ manifest: { name: "other", attributes: { monthly_cost_delta: { type: "number", description: "d" }, open: { type: "boolean", description: "o" } } } })));
    const both = packFindings(goal, makePlan([mutate("a", { attributes: { monthly_cost_delta: 1 } })]), [cost, other]);
    expect(both.filter((f) => f.code === "attribute_misnamed")).toEqual([]);
  });

  it("an attribute two packs declare, given with the wrong type, is one blocker, reported by the first enabled pack that declares it", () => {
    const other = loadPack(writePack(rulePack({ manifest: { name: "other" } })));
    const plan = makePlan([mutate("a", { attributes: { open: "true" } })]);
    const mistyped = (packs: (typeof pack)[]) => runGates(goal, plan, { packs }).filter((f) => f.code === "attribute_mistyped").map((f) => f.key);
    expect(mistyped([pack, other])).toEqual(["pack.test:attribute_mistyped:a:open"]);
    expect(mistyped([other, pack])).toEqual(["pack.other:attribute_mistyped:a:open"]);
    expect(packFindings(goal, plan, [pack, other]).filter((f) => f.code === "attribute_mistyped")).toHaveLength(1);
    // Alone, each pack still reports it (its canaries and `check --pack` with one pack).
    expect(mistyped([other])).toEqual(["pack.other:attribute_mistyped:a:open"]);
  });

  it("repairs are judged with the packs: a reorder that leaves a pack blocker is not adopted", () => {
    const plan = makePlan([read("b"), mutate("a", { attributes: { open: true } })], [hard("a", "b")]);
    expect(applyRepairs(goal, plan, runGates(goal, plan)).notes.map((n) => n.repair)).toEqual(["topological_reorder"]);
    const withPack = applyRepairs(goal, plan, runGates(goal, plan, { packs: [pack] }), { packs: [pack] });
    expect(withPack.notes).toEqual([]);
    expect(withPack.findings.map((f) => f.code)).toEqual(expect.arrayContaining(["order_violates_dependency", "opened"]));
  });
});

describe("pack canaries", () => {
  it("pass when every rule behaves", () => {
    expect(judgePackCanaries(pack).failures).toEqual([]);
  });

  it("name the pack and the rule that is silent on its must-fire canary, or fires on its twin", () => {
    const silent = loadPack(writePack(rulePack({ rule: { when: "task.attributes.open == true && task.kind == 'verify'" } })));
    expect(judgePackCanaries(silent).failures).toEqual(["pack.test: test/canaries/rules.yaml#open: rule opened is silent on its must-fire canary"]);
    const loud = loadPack(writePack(rulePack({ rule: { when: "task.kind == 'mutate'" } })));
    expect(judgePackCanaries(loud).failures).toEqual(["pack.test: test/canaries/rules.yaml#closed: rule opened fires on its must-not-fire twin"]);
  });

  it("fail a rule that cannot be judged on a canary: an error never counts as firing", () => {
    const fragile = loadPack(writePack(rulePack({ rule: { when: "task.target.startsWith('x')" } })));
    const failures = judgePackCanaries(fragile).failures;
    expect(failures).toContain("pack.test: test/canaries/rules.yaml#open: rule opened is silent on its must-fire canary");
    expect(failures.some((f) => /#open: rule opened could not be evaluated: .*startsWith.*\(task a\)/.test(f))).toBe(true);
  });
});
