// Synthetic sound plans for the benchmarks: guarded high-risk changes in a chain, a fan, parallel
// groups. Every plan passes every gate, so a benchmark measures the full work of a clean check.
import type { z } from "zod";
import type { GoalSchema } from "../src/formats/goal.ts";
import type { PlanInput } from "../src/formats/plan.ts";

type TaskInput = PlanInput["tasks"][number];
/** The goal every benchmark plan is for. */
export const BENCH_GOAL: z.input<typeof GoalSchema> = {
  id: "bench",
  domain: "bench",
  title: "Bench",
  description: "Gate benchmark",
  risk_tolerance: "strict",
  constraints: { facts: ["window_booked"] },
};

/** A high-risk change guarded as the gates want it: snapshot, change with a credible rollback, output check. */
function guardedChange(i: number): TaskInput[] {
  return [
    { id: `snap${i}`, description: "snapshot", kind: "read", establishes: [`snap${i}`], preconditions: [{ fact: "window_booked", established_by: "env" }] },
    {
      id: `change${i}`,
      description: "change",
      kind: "mutate",
      risk: "high",
      mutates: [`res${i}`],
      produces: [`out${i}`],
      preconditions: [{ fact: `snap${i}` }],
      rollback: { trigger: `check${i}`, action: "restore", requires: [`snap${i}`], restores: [`res${i}`] },
    },
    { id: `check${i}`, description: "check", kind: "verify", verifies: { task: `change${i}`, subject: "mutation_output", reads: [`out${i}`] } },
  ];
}

/** Guarded changes in one long chain: every task has a hard edge from the one before. */
export function chain(n: number): PlanInput {
  const tasks = Array.from({ length: Math.ceil(n / 3) }, (_, i) => guardedChange(i))
    .flat()
    .slice(0, n - (n % 3))
    .concat(Array.from({ length: n % 3 }, (_, i) => ({ id: `tail${i}`, description: "tail", kind: "notify" as const })));
  const dependencies = tasks.slice(1).map((t, i) => ({ from: tasks[i]!.id, to: t.id }));
  return { id: "chain", goal_id: "bench", tasks, dependencies };
}

/** One root that everything needs, n-2 independent changes fanning out of it, and one join. */
export function fan(n: number): PlanInput {
  const root: TaskInput = { id: "root", description: "root", kind: "read", establishes: ["root_ready"] };
  const members: TaskInput[] = Array.from({ length: n - 2 }, (_, i) => ({
    id: `m${i}`,
    description: "member",
    kind: "mutate",
    mutates: [`res${i}`],
    preconditions: [{ fact: "root_ready", established_by: "root" }],
  }));
  const join: TaskInput = { id: "join", description: "join", kind: "notify", preconditions: [{ fact: "root_ready" }] };
  const dependencies = members.flatMap((m) => [
    { from: "root", to: m.id },
    { from: m.id, to: "join" },
  ]);
  return { id: "fan", goal_id: "bench", tasks: [root, ...members, join], dependencies };
}

/** Parallel groups of ten tasks on distinct resources; each group waits for the one before. */
export function groups(n: number): PlanInput {
  const tasks: TaskInput[] = Array.from({ length: n }, (_, i) => ({
    id: `t${i}`,
    description: "grouped",
    kind: i % 2 ? "mutate" : "read",
    mutates: i % 2 ? [`res${i}`] : [],
    parallel_group: `g${Math.floor(i / 10)}`,
  }));
  const dependencies = tasks.flatMap((t, i) => (i >= 10 ? [{ from: tasks[i - 10]!.id, to: t.id }] : []));
  return { id: "groups", goal_id: "bench", tasks, dependencies };
}
