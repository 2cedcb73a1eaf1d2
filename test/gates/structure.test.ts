import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rmSync } from "node:fs";
import { InputError } from "../../src/formats/load.ts";
import { structuralViolations } from "../../src/gates/structure.ts";
import { loadCheckInputs } from "../../harness/api/check.ts";
import { hard, makeGoal, makePlan, mutate, read, verify } from "../helpers/plans.ts";

const goal = makeGoal();
const paths = (plan: ReturnType<typeof makePlan>) => structuralViolations(goal, plan).map((v) => v.path);

describe("structuralViolations", () => {
  it("accepts a sound plan, duplicate edges included", () => {
    expect(structuralViolations(goal, makePlan([read("a"), read("b")], [hard("a", "b"), hard("a", "b")]))).toEqual([]);
  });

  it("names each broken rule by key path", () => {
    const cases: [ReturnType<typeof makePlan>, string[]][] = [
      [makePlan([]), ["tasks"]],
      [makePlan([read("a")], [], { goal_id: "elsewhere" }), ["goal_id"]],
      [makePlan([read("a"), read("a")]), ["tasks[1].id"]],
      [makePlan([read("Bad Id")]), ["tasks[0].id"]],
      [makePlan([read("env")]), ["tasks[0].id"]],
      [makePlan([read("a"), read("b")], [hard("a", "b"), hard("a", "c")]), ["dependencies[1].to"]],
      [makePlan([read("a"), read("b")], [hard("c", "b")]), ["dependencies[0].from"]],
      [makePlan([read("a")], [hard("a", "a")]), ["dependencies[0].to"]],
      [makePlan([read("a", { preconditions: [{ fact: "f", established_by: "ghost" }] })]), ["tasks[0].preconditions[0].established_by"]],
      [makePlan([read("a", { preconditions: [{ fact: "f", established_by: "env" }] })]), []],
      [makePlan([read("a", { kind: "verify" } as object)]), ["tasks[0].verifies"]],
      [makePlan([mutate("m"), mutate("n", { verifies: { task: "m", subject: "mutation_output" } })]), ["tasks[1].verifies"]],
      [makePlan([verify("v", "ghost", "pre_state")]), ["tasks[0].verifies.task"]],
      [makePlan([read("r"), verify("v", "r", "pre_state")]), ["tasks[1].verifies.task"]],
      [makePlan([mutate("m", { rollback: { trigger: "ghost", action: "undo" } })]), ["tasks[0].rollback.trigger"]],
      [makePlan([read("r", { rollback: { trigger: "r", action: "undo" } })]), ["tasks[0].rollback"]],
      [makePlan([read("a", { parallel_group: "g" }), read("b"), read("c", { parallel_group: "g" })]), ["tasks[2].parallel_group"]],
      [makePlan([read("a", { parallel_group: "g" }), read("b", { parallel_group: "g" }), read("c")]), []],
    ];
    for (const [plan, expected] of cases) expect(paths(plan)).toEqual(expected);
  });

  it("gives dependency violations a detail that does not depend on the edge's index", () => {
    const [v] = structuralViolations(goal, makePlan([read("a")], [hard("a", "zz")]));
    expect(v).toMatchObject({ segments: ["dependencies", 0, "to"], task_id: null, detail: "dependency a->zz.to#dangling" });
  });
});

describe("check input loading: each kind of invalid input is one line naming file and path", () => {
  const dir = mkdtempSync(join(tmpdir(), "fieldtest-check-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const goalFile = join(dir, "goal.yaml");
  writeFileSync(goalFile, "id: test-goal\ndomain: test\ntitle: T\ndescription: D\nrisk_tolerance: strict\nconstraints: {facts: [window_booked]}\n");

  const base = {
    head: "id: p\ngoal_id: test-goal\ntasks:\n",
    snapshot: "  - id: snapshot\n    description: Snapshot\n    kind: read\n    establishes: [snap]\n",
    migrate: "  - id: migrate\n    description: Migrate\n    kind: mutate\n    produces: [out]\n",
    check: "  - id: check\n    description: Check\n    kind: verify\n    verifies: {task: migrate, subject: mutation_output, reads: [out]}\n",
    deps: "dependencies:\n  - {from: snapshot, to: migrate}\n",
  };
  const valid = base.head + base.snapshot + base.migrate + base.check + base.deps;

  function errorOf(text: string, goalText?: string): InputError {
    const planFile = join(dir, "plan.yaml");
    writeFileSync(planFile, text);
    let g = goalFile;
    if (goalText !== undefined) writeFileSync((g = join(dir, "goal2.yaml")), goalText);
    try {
      loadCheckInputs(g, planFile);
    } catch (e) {
      if (e instanceof InputError) return e;
      throw e;
    }
    throw new Error("expected an InputError");
  }

  it("loads the valid plan", () => {
    expect(loadCheckInputs(goalFile, (writeFileSync(join(dir, "ok.yaml"), valid), join(dir, "ok.yaml"))).plan.tasks).toHaveLength(3);
  });

  const kinds: [string, string, string, number | undefined][] = [
    ["YAML syntax error", valid.replace("kind: read", "kind: read: oops"), "", 6],
    ["unknown key", valid.replace("kind: read", "kind: read\n    owner: alice"), "tasks[0].owner", 7],
    ["bad enum", valid.replace("kind: read", "kind: reed"), "tasks[0].kind", 6],
    ["duplicate task id", valid.replace("id: check", "id: migrate"), "tasks[2].id", 12],
    ["dangling dependency", valid.replace("to: migrate}", "to: migrat}"), "dependencies[0].to", 17],
    [
      "dangling established_by",
      valid.replace("produces: [out]", "produces: [out]\n    preconditions: [{fact: snap, established_by: snapshoot}]"),
      "tasks[1].preconditions[0].established_by",
      12,
    ],
    ["verifies on a mutate task", valid.replace("kind: mutate", "kind: mutate\n    verifies: {task: migrate, subject: pre_state}"), "tasks[1].verifies", 11],
    [
      "rollback trigger that is not a task",
      valid.replace("produces: [out]", "produces: [out]\n    rollback: {trigger: chek, action: undo}"),
      "tasks[1].rollback.trigger",
      12,
    ],
    [
      "non-contiguous parallel group",
      valid.replace("kind: read", "kind: read\n    parallel_group: g").replace("kind: verify", "kind: verify\n    parallel_group: g"),
      "tasks[2].parallel_group",
      16,
    ],
    ["empty plan", "id: p\ngoal_id: test-goal\ntasks: []\n", "tasks", 3],
    ["wrong type", valid.replace("establishes: [snap]", "establishes: snap"), "tasks[0].establishes", 7],
    ["missing required field", valid.replace("    description: Migrate\n", ""), "tasks[1].description", 8],
    ["goal_id of another goal", valid.replace("goal_id: test-goal", "goal_id: other"), "goal_id", 2],
    ["self-dependency", valid.replace("to: migrate}", "to: snapshot}"), "dependencies[0].to", 17],
  ];
  for (const [kind, text, path, line] of kinds) {
    it(kind, () => {
      const e = errorOf(text);
      expect(e.file).toBe(join(dir, "plan.yaml"));
      expect(e.path).toBe(path);
      expect(e.line).toBe(line);
      expect(e.message.split("\n")).toHaveLength(1);
      expect(e.message.startsWith(`${join(dir, "plan.yaml")}:${line}: ${path ? `${path}: ` : ""}`)).toBe(true);
    });
  }

  it("a goal file with an unknown key names the goal file", () => {
    const e = errorOf(valid, "id: test-goal\ndomain: t\ntitle: T\ndescription: D\nrisk_tolerance: strict\nowner: bob\n");
    expect([e.file.endsWith("goal2.yaml"), e.path]).toEqual([true, "owner"]);
  });

  it("accepts a corpus goal file", () => {
    const corpusGoal = "id: test-goal\ndomain: t\ntitle: T\ndescription: D\nrisk_tolerance: strict\ncategory: strict\nexpect: {verdict: approve}\n";
    writeFileSync(join(dir, "corpus-goal.yaml"), corpusGoal);
    writeFileSync(join(dir, "ok.yaml"), valid);
    expect(loadCheckInputs(join(dir, "corpus-goal.yaml"), join(dir, "ok.yaml")).goal).not.toHaveProperty("expect");
  });
});
