import { describe, expect, it } from "vitest";
import { InputError } from "../../src/formats/load.ts";
import { loadPack } from "../../src/packs/load.ts";
import { rulePack, writePack } from "./helpers.ts";

/** The InputError a pack whose first rule's condition is `when` fails with. */
function errorOf(when: string, field: "when" | "message" = "when"): InputError {
  const dir = writePack(rulePack({ rule: field === "when" ? { when } : { message: when } }));
  try {
    loadPack(dir);
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error(`the pack loaded: ${when}`);
}

describe("CEL errors are invalid input naming the pack file, the rule and the position", () => {
  it.each([
    ["a syntax error", "task.kind == && true", "1:11", /syntax error/],
    ["an unknown field", "task.attributes.opn == true", "1:16", /unknown field 'opn' on task\.attributes \(fields: open\)/],
    ["an unknown task field", "task.descripton == 'x'", "1:5", /unknown field 'descripton' on task/],
    ["prose, which rules never see", "task.description == 'x'", "1:5", /unknown field 'description' on task/],
    ["a type error", "task.kind == 1", "1:11", /no operator or function '==' for \(string, int\)/],
    ["arithmetic across types", "task.step + 1.5 > 2.0", "1:11", /'\+' for \(int, double\)/],
    ["an unknown function", "task.kind.lowerAscii() == 'x'", "1:10", /unknown function 'lowerAscii'/],
    ["an unknown variable", "tsk.kind == 'mutate'", "1:1", /unknown variable 'tsk'/],
    ["a condition that is not a bool", "task.id", "1:1", /must be a bool, not string/],
    ["a macro over a field of the wrong type", "task.kind.exists(x, x == 'a')", "1:5", /cannot iterate over string/],
    ["a field of a list element", "plan.tasks.exists(t, t.owner == 'x')", "1:", /unknown field 'owner' on task/],
    // The parser recurses through it: thousands of parentheses overflowed the stack (exit 3, no file).
    ["an expression nested too deeply", `${"(".repeat(3000)}true${")".repeat(3000)}`, "1:1", /the expression is nested too deeply/],
  ])("%s", (_what, when, position, message) => {
    const e = errorOf(when);
    expect(e.file).toMatch(/pack\.yaml$/);
    expect(e.path).toBe("rules[0].when");
    expect(e.detail).toContain("rule opened: at ");
    expect(e.detail).toContain(`at ${position}`);
    expect(e.detail).toMatch(message);
    expect(e.line).toBeGreaterThan(0);
    expect(e.message.split("\n")).toHaveLength(1);
  });

  it("a message placeholder is checked the same way", () => {
    const e = errorOf("task {{task.idd}} opens it", "message");
    expect([e.path, e.detail]).toEqual(["rules[0].message", expect.stringMatching(/rule opened: at 1:12: unknown field 'idd' on task/)]);
  });

  it("a plan rule has no task variable", () => {
    const dir = writePack(rulePack({ rule: { each: "plan", when: "task.kind == 'mutate'", message: "m" } }));
    expect(() => loadPack(dir)).toThrow(/unknown variable 'task' \(variables here: goal, plan\)/);
  });

  it("a rule may not take a built-in gate code, the attribute check's code, or another rule's code", () => {
    expect(() => loadPack(writePack(rulePack({ rule: { code: "rollback_missing" } })))).toThrow(/rules\[0\]\.code: "rollback_missing" is a built-in gate code/);
    expect(() => loadPack(writePack(rulePack({ rule: { code: "attribute_mistyped" } })))).toThrow(/the pack's own attribute check/);
    const twice = rulePack();
    twice.manifest.rules.push({ ...twice.manifest.rules[0]! });
    expect(() => loadPack(writePack(twice))).toThrow(/rules\[1\]\.code: "opened" is used by two rules/);
  });

  it("accepts the standard macros, has(), membership, ternaries, map literals and conversions", () => {
    for (const when of [
      "plan.tasks.exists(t, t.step < task.step && t.kind == 'verify')",
      "plan.tasks.all(t, t.id != '') && plan.tasks.exists_one(t, t.id == task.id)",
      "size(plan.tasks.filter(t, t.high_blast).map(t, t.id)) > 1",
      "has(task.attributes.open) && task.target == null",
      "'x' in task.mutates || task.kind in ['mutate', 'verify']",
      "(task.high_blast ? task.risk : 'low') == 'high'",
      "{'a': 1}['a'] == int(task.index) + 1",
      "string(task.step).startsWith('1') && double(task.index) >= 0.0 && task.id.matches('^[a-z]')",
      "goal.constraints.max_revisions == null || goal.constraints.max_revisions > 2",
      "task.verifies != null && task.verifies.subject == 'pre_state' && task.rollback == null",
      "plan.dependencies.exists(d, d.to == task.id && d.kind == 'hard')",
      "task.preconditions.exists(p, p.established_by == 'env')",
    ])
      expect(() => loadPack(writePack(rulePack({ rule: { when } }))), when).not.toThrow();
  });
});
