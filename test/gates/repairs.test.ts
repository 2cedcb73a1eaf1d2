import { describe, expect, it } from "vitest";
import { runGates } from "../../src/gates/index.ts";
import { applyRepairs, topologicalReorder } from "../../src/gates/repairs.ts";
import { codesOf, hard, makeGoal, makePlan, mutate, read } from "../helpers/plans.ts";

const goal = makeGoal();
const ids = (plan: ReturnType<typeof makePlan>) => plan.tasks.map((t) => t.id);
const repair = (plan: ReturnType<typeof makePlan>) => applyRepairs(goal, plan, runGates(goal, plan));

describe("topological reorder", () => {
  it("puts tasks in hard-dependency order, keeping list order between independent tasks", () => {
    const plan = makePlan([read("c"), read("x"), read("b"), read("a")], [hard("a", "b"), hard("b", "c")]);
    expect(codesOf(runGates(goal, plan))).toEqual(["order_violates_dependency", "order_violates_dependency"]);
    const result = repair(plan);
    expect(ids(result.plan)).toEqual(["x", "a", "b", "c"]);
    expect(result.findings).toEqual([]);
    expect(result.notes).toEqual([
      expect.objectContaining({ origin: "repair", repair: "topological_reorder", severity: "info", task_id: null, moved: ["x", "a", "c"] }),
    ]);
  });

  it("moves a parallel group as one unit", () => {
    const plan = makePlan([read("x"), read("g1", { parallel_group: "g" }), read("g2", { parallel_group: "g" })], [hard("g2", "x")]);
    expect(ids(repair(plan).plan)).toEqual(["g1", "g2", "x"]);
  });

  it("is not adopted when the reordered plan still has a blocker", () => {
    const plan = makePlan([read("a", { parallel_group: "g" }), read("b", { parallel_group: "g" })], [hard("a", "b")]);
    const findings = runGates(goal, plan);
    const result = applyRepairs(goal, plan, findings);
    expect(result).toEqual({ plan, findings, notes: [] });
  });

  it("is not adopted when the new order breaks something else", () => {
    // b establishes what a needs; putting a first to satisfy the edge leaves a's precondition open.
    const plan = makePlan([read("b", { establishes: ["f"] }), read("a", { preconditions: [{ fact: "f" }] })], [hard("a", "b")]);
    expect(repair(plan).plan).toBe(plan);
  });

  it("is not attempted when another kind of blocker is present, or on a cycle", () => {
    const mixed = makePlan([read("b"), read("a"), mutate("m", { risk: "high", mutates: ["x"] })], [hard("a", "b")]);
    expect(repair(mixed).plan).toBe(mixed);
    const cycle = makePlan([read("a"), read("b")], [hard("a", "b"), hard("b", "a")]);
    expect(repair(cycle).notes).toEqual([]);
    expect(topologicalReorder(cycle)).toBeNull();
  });

  it("returns null for a plan already in order", () => {
    expect(topologicalReorder(makePlan([read("a"), read("b")], [hard("a", "b")]))).toBeNull();
  });
});

describe("precondition closer", () => {
  const needs = (id: string, fact: string, extra = {}) => read(id, { preconditions: [{ fact }], ...extra });

  it("moves the establishing task to just before the first task that needs the fact", () => {
    const plan = makePlan([read("start"), needs("work", "ready"), needs("more", "ready"), read("prep", { establishes: ["ready"] })]);
    const result = repair(plan);
    expect(ids(result.plan)).toEqual(["start", "prep", "work", "more"]);
    expect(result.findings).toEqual([]);
    expect(result.notes).toEqual([
      expect.objectContaining({ repair: "precondition_closer", task_id: "prep", moved: ["prep"], message: expect.stringContaining("before work") }),
    ]);
  });

  it("moves it before the needing task's whole parallel group", () => {
    const plan = makePlan([read("a", { parallel_group: "g" }), needs("work", "ready", { parallel_group: "g" }), read("prep", { establishes: ["ready"] })]);
    expect(ids(repair(plan).plan)).toEqual(["prep", "a", "work"]);
  });

  it("is not adopted when the move breaks a satisfied hard edge", () => {
    const plan = makePlan([needs("work", "ready"), read("mid"), read("prep", { establishes: ["ready"] })], [hard("mid", "prep")]);
    expect(repair(plan).plan).toBe(plan);
  });

  it("is not adopted when the move adds a new blocker", () => {
    const plan = makePlan([needs("work", "ready"), read("base", { establishes: ["b"] }), needs("prep", "b", { establishes: ["ready"] })]);
    const result = repair(plan);
    expect([result.plan, result.notes]).toEqual([plan, []]);
  });

  it("does nothing when no later task establishes the fact", () => {
    const plan = makePlan([needs("work", "ready")]);
    expect(repair(plan).notes).toEqual([]);
  });

  it("repairs one fact per call", () => {
    const plan = makePlan([needs("w1", "r1"), needs("w2", "r2"), read("p1", { establishes: ["r1"] }), read("p2", { establishes: ["r2"] })]);
    const first = repair(plan);
    expect(ids(first.plan)).toEqual(["p1", "w1", "w2", "p2"]);
    expect(first.findings.map((f) => f.key)).toEqual(["preconditions_closed:precondition_unestablished:w2:r2"]);
    const second = applyRepairs(goal, first.plan, first.findings);
    expect(ids(second.plan)).toEqual(["p1", "w1", "p2", "w2"]);
    expect(second.findings).toEqual([]);
  });
});
