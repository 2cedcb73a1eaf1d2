import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../src/formats/plan.ts";
import { runGates } from "../../src/gates/index.ts";
import { graphOf } from "../../src/graph/plan-graph.ts";
import { applyRepairs, topologicalReorder } from "../../src/gates/repairs.ts";
import { anyPlanOf, prose } from "../helpers/arbitrary-plans.ts";
import { makeGoal, makePlan, mutate, notify, read, verify } from "../helpers/plans.ts";

const NAMES = ["f0", "f1", "f2", "r0", "r1", "out"];

/** Any plan over a few ids and names, sound or not: gates must behave on all of them. */
const anyPlan = anyPlanOf({ names: NAMES });

/** Reads that need and establish a few facts, with random edges: the shape both repairs act on. */
const repairablePlan = fc
  .integer({ min: 2, max: 7 })
  .chain((n) => {
    const ids = Array.from({ length: n }, (_, i) => `t${i}`);
    const facts = fc.subarray(["f0", "f1", "f2"], { maxLength: 1 });
    const task = (id: string) =>
      fc.tuple(facts, facts).map(([needs, gives]) => read(id, { preconditions: needs.map((fact) => ({ fact })), establishes: gives }));
    const dependency = fc.record({ from: fc.constantFrom(...ids), to: fc.constantFrom(...ids) }).filter((d) => d.from !== d.to);
    return fc.tuple(fc.tuple(...ids.map(task)), fc.array(dependency, { maxLength: n }));
  })
  .map(([tasks, deps]) => makePlan(tasks, deps));

const anyGoal = fc.subarray(NAMES, { maxLength: 2 }).map((facts) => makeGoal(facts));

function rewriteProse(plan: Plan, text: string): Plan {
  return {
    ...plan,
    id: `${plan.id}-${text.length}`,
    tasks: plan.tasks.map((t) => ({
      ...t,
      description: `${text} ${t.description}`,
      ...(t.rollback ? { rollback: { ...t.rollback, action: text } } : {}),
    })),
  };
}

/**
 * Sound plans built from blocks: single reads, notifications, parallel groups of reads, and
 * high-risk changes (snapshot, change with a credible rollback, output check), with random hard
 * edges that all point forward between blocks.
 */
const soundPlan = fc
  .tuple(
    fc.array(fc.constantFrom("read", "notify", "group", "change"), { minLength: 1, maxLength: 8 }),
    fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 12 }),
  )
  .map(([blocks, edges]) => {
    const tasks = blocks.flatMap((block, b) => {
      if (block === "read") return [read(`r${b}`)];
      if (block === "notify") return [notify(`n${b}`)];
      if (block === "group") return [read(`g${b}a`, { parallel_group: `g${b}` }), read(`g${b}b`, { parallel_group: `g${b}` })];
      return [
        read(`snap${b}`, { establishes: [`snap${b}`] }),
        mutate(`change${b}`, {
          risk: "high",
          mutates: [`res${b}`],
          produces: [`out${b}`],
          preconditions: [{ fact: `snap${b}` }],
          rollback: { trigger: `check${b}`, action: "undo", requires: [`snap${b}`], restores: [`res${b}`] },
        }),
        verify(`check${b}`, `change${b}`, "mutation_output", [`out${b}`]),
      ];
    });
    const blockOf = tasks.map((t) => t.parallel_group ?? t.id);
    const deps = edges
      .map(([x, y]) => [x % tasks.length, y % tasks.length].sort((a, b) => a - b) as [number, number])
      .filter(([a, b]) => a < b && blockOf[a] !== blockOf[b])
      .map(([a, b]) => ({ from: tasks[a]!.id, to: tasks[b]!.id }));
    return makePlan(tasks, deps);
  });

/** Shuffle the units (parallel groups or single tasks) of a plan, keeping each group contiguous. */
function shuffleUnits(plan: Plan, keys: number[]): Plan {
  const units: Plan["tasks"][] = [];
  for (const t of plan.tasks) {
    const last = units[units.length - 1];
    if (last && t.parallel_group !== undefined && last[0]!.parallel_group === t.parallel_group) last.push(t);
    else units.push([t]);
  }
  const order = units.map((u, i) => ({ u, k: keys[i % keys.length]! * 1000 + i })).sort((a, b) => a.k - b.k);
  return { ...plan, tasks: order.flatMap((o) => o.u) };
}

describe("gate laws", () => {
  it("rewriting every prose field changes no gate output", () => {
    fc.assert(
      fc.property(anyGoal, anyPlan, prose, (goal, plan, text) => {
        const reworded = { ...goal, title: text, description: text };
        expect(runGates(reworded, rewriteProse(plan, text))).toEqual(runGates(goal, plan));
      }),
      { numRuns: 300 },
    );
  });

  it("reordering the dependencies array changes nothing", () => {
    fc.assert(
      fc.property(anyGoal, anyPlan, fc.infiniteStream(fc.nat()), (goal, plan, stream) => {
        const keys = [...stream.take(plan.dependencies.length)];
        const shuffled = plan.dependencies
          .map((d, i) => ({ d, k: keys[i]! }))
          .sort((a, b) => a.k - b.k)
          .map((x) => x.d);
        expect(runGates(goal, { ...plan, dependencies: shuffled })).toEqual(runGates(goal, plan));
      }),
      { numRuns: 300 },
    );
  });

  it("finding keys are unique and every finding is a blocker", () => {
    fc.assert(
      fc.property(anyGoal, anyPlan, (goal, plan) => {
        const keys = runGates(goal, plan).map((f) => f.key);
        expect(new Set(keys).size).toBe(keys.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the graph queries the gates stand on", () => {
  /** Hard-edge reachability by repeated relaxation: slow, obviously right. */
  function reachable(plan: Plan): boolean[][] {
    const n = plan.tasks.length;
    const pos = new Map(plan.tasks.map((t, i) => [t.id, i]));
    const r = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => i === j));
    for (const d of plan.dependencies) {
      const a = pos.get(d.from);
      const b = pos.get(d.to);
      if (d.kind === "hard" && a !== undefined && b !== undefined) r[a]![b] = true;
    }
    for (let k = 0; k < n; k++) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (r[i]![k] && r[k]![j]) r[i]![j] = true;
    return r;
  }

  it("cycles() are exactly the groups of two or more tasks that reach each other over hard edges", () => {
    fc.assert(
      fc.property(anyPlan, (plan) => {
        const unique = makePlan(
          plan.tasks.filter((t, i) => plan.tasks.findIndex((u) => u.id === t.id) === i),
          plan.dependencies,
        );
        const r = reachable(unique);
        const n = unique.tasks.length;
        const expected: number[][] = [];
        const placed = new Set<number>();
        for (let i = 0; i < n; i++) {
          if (placed.has(i)) continue;
          const component = Array.from({ length: n }, (_, j) => j).filter((j) => r[i]![j] && r[j]![i]);
          component.forEach((j) => placed.add(j));
          if (component.length > 1) expected.push(component);
        }
        expect(graphOf(unique).cycles()).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("hard edges are deduplicated and self-edges and dangling names ignored", () => {
    fc.assert(
      fc.property(anyPlan, (plan) => {
        const g = graphOf(plan);
        const edges = new Set<string>();
        for (const d of plan.dependencies) {
          const a = g.pos(d.from);
          const b = g.pos(d.to);
          if (d.kind === "hard" && a !== undefined && b !== undefined && a !== b) edges.add(`${a}>${b}`);
        }
        const succs = g.hardSuccs.flatMap((tos, a) => tos.map((b) => `${a}>${b}`));
        const preds = g.hardPreds.flatMap((froms, b) => froms.map((a) => `${a}>${b}`));
        expect([succs.length, new Set(succs)]).toEqual([edges.size, edges]);
        expect([preds.length, new Set(preds)]).toEqual([edges.size, edges]);
      }),
      { numRuns: 300 },
    );
  });
});

describe("repair laws", () => {
  const goal = makeGoal();

  it("the sound-plan generator builds plans that pass every gate", () => {
    fc.assert(
      fc.property(soundPlan, (plan) => {
        expect(runGates(goal, plan)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("a plan that passes all gates still passes after the topological repair", () => {
    fc.assert(
      fc.property(soundPlan, (plan) => {
        const reordered = topologicalReorder(plan)?.plan ?? plan;
        expect(runGates(goal, reordered)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("the topological order of a shuffled sound plan satisfies every hard edge and keeps groups whole", () => {
    fc.assert(
      fc.property(soundPlan, fc.array(fc.nat(50), { minLength: 1, maxLength: 20 }), (plan, keys) => {
        const shuffled = shuffleUnits(plan, keys);
        const reordered = topologicalReorder(shuffled)?.plan ?? shuffled;
        const structural = runGates(goal, reordered).filter((f) => f.code === "order_violates_dependency" || f.code === "schema_invalid");
        expect(structural).toEqual([]);
        expect(reordered.tasks.map((t) => t.id).sort()).toEqual(plan.tasks.map((t) => t.id).sort());
      }),
      { numRuns: 200 },
    );
  });

  it("a repair never invents or drops tasks, and its findings are the gates of the plan it returns", () => {
    fc.assert(
      fc.property(anyGoal, fc.oneof(anyPlan, repairablePlan), (g, plan) => {
        const findings = runGates(g, plan);
        const result = applyRepairs(g, plan, findings);
        expect(result.plan.tasks.map((t) => t.id).sort()).toEqual(plan.tasks.map((t) => t.id).sort());
        expect(result.findings).toEqual(runGates(g, result.plan));
        expect(result.notes.length).toBeLessThanOrEqual(1);
        if (result.notes.length === 1) expect(result.findings.length).toBeLessThan(findings.length);
      }),
      { numRuns: 300 },
    );
  });
});
