import type { GateFinding, RepairNote } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";
import { graphOf, type PlanGraph } from "../graph/plan-graph.ts";
import { keyDetail, listIds } from "./finding.ts";
import { runGates, type RunGatesOptions } from "./index.ts";

interface RepairResult {
  /** The adopted plan, or the plan given when no repair was adopted. */
  plan: Plan;
  /** Gate findings of the returned plan (the re-run ones after an adopted repair). */
  findings: GateFinding[];
  notes: RepairNote[];
}

/**
 * The deterministic repairs of docs/design.md §4, at most one per call: the topological reorder when
 * every blocker is `order_violates_dependency` and there is no cycle, otherwise the precondition
 * closer. A repair only moves tasks (it never invents one) and is adopted only when the re-run gates
 * say it helped. `gates` are the options the findings were made with (the enabled packs), so the
 * re-run judges the repaired plan by the same gates.
 */
export function applyRepairs(goal: Goal, plan: Plan, findings: GateFinding[], gates: RunGatesOptions = {}): RepairResult {
  const unchanged: RepairResult = { plan, findings, notes: [] };
  const blockers = findings.filter((f) => f.severity === "blocker");
  if (blockers.length === 0) return unchanged;
  if (blockers.every((f) => f.code === "order_violates_dependency")) {
    const reordered = topologicalReorder(plan);
    if (!reordered) return unchanged;
    const after = runGates(goal, reordered.plan, gates);
    if (after.length > 0) return unchanged;
    const note: RepairNote = {
      origin: "repair",
      repair: "topological_reorder",
      severity: "info",
      task_id: null,
      message: `reordered tasks to follow their hard dependencies; moved ${listIds(reordered.moved)}`,
      moved: reordered.moved,
    };
    return { plan: reordered.plan, findings: after, notes: [note] };
  }
  return closePrecondition(goal, plan, findings, gates) ?? unchanged;
}

/**
 * A stable topological order over hard edges: ties keep list order, and each parallel group (a
 * contiguous run of tasks) moves as one unit. Null when the plan has a hard cycle or is already
 * in that order. O((V+E) log V).
 */
export function topologicalReorder(plan: Plan): { plan: Plan; moved: string[] } | null {
  const graph = graphOf(plan);
  if (graph.cycles().length > 0) return null;
  const units = unitsOf(graph);
  const unitOf = new Int32Array(plan.tasks.length);
  units.forEach((members, u) => members.forEach((p) => (unitOf[p] = u)));

  const succs: number[][] = units.map(() => []);
  const indegree = new Int32Array(units.length);
  const seen = new Set<number>();
  graph.hardSuccs.forEach((tos, from) => {
    for (const to of tos) {
      const a = unitOf[from]!;
      const b = unitOf[to]!;
      const edge = a * units.length + b;
      if (a === b || seen.has(edge)) continue;
      seen.add(edge);
      succs[a]!.push(b);
      indegree[b]!++;
    }
  });

  const ready = new MinHeap();
  indegree.forEach((d, u) => d === 0 && ready.push(u));
  const order: number[] = [];
  while (ready.size > 0) {
    const u = ready.pop();
    order.push(u);
    for (const v of succs[u]!) if (--indegree[v]! === 0) ready.push(v);
  }
  // A cycle between units (tasks of a group joined through outside tasks) leaves some unplaced.
  if (order.length < units.length || order.every((u, k) => u === k)) return null;

  const positions = order.flatMap((u) => units[u]!);
  const tasks = positions.map((p) => plan.tasks[p]!);
  const moved = positions.filter((p, k) => p !== k).map((p) => plan.tasks[p]!.id);
  return { plan: { ...plan, tasks }, moved };
}

/** Maximal runs of consecutive tasks that share a parallel group; an ungrouped task is its own unit. */
function unitsOf(graph: PlanGraph): number[][] {
  const units: number[][] = [];
  graph.tasks.forEach((_t, p) => {
    const last = units[units.length - 1];
    if (last && graph.sameGroup(last[0]!, p)) last.push(p);
    else units.push([p]);
  });
  return units;
}

/**
 * The precondition closer: for a `precondition_unestablished` fact that a later task establishes,
 * move that task to just before the first task that needs the fact (before its whole parallel
 * group). Adopted only if no satisfied hard edge breaks and the re-run gates show fewer blockers
 * and no new ones. Tries the findings' facts in order and adopts the first move that qualifies.
 */
function closePrecondition(goal: Goal, plan: Plan, findings: GateFinding[], gates: RunGatesOptions): RepairResult | null {
  const graph = graphOf(plan);
  const needersOf = new Map<string, number[]>();
  for (const f of findings) {
    if (f.code !== "precondition_unestablished" || f.task_id === null) continue;
    const pos = graph.pos(f.task_id);
    if (pos === undefined) continue;
    const fact = keyDetail(f);
    needersOf.set(fact, [...(needersOf.get(fact) ?? []), pos]);
  }
  const before = new Set(findings.map((f) => f.key));
  for (const [fact, needers] of needersOf) {
    const first = Math.min(...needers);
    let insertAt = first;
    while (insertAt > 0 && graph.sameGroup(insertAt - 1, first)) insertAt--;
    // A grouped establisher cannot leave its group without breaking the group's contiguity.
    const mover = graph.whoEstablishes(fact).find((p) => p > first && graph.tasks[p]!.parallel_group === undefined);
    if (mover === undefined) continue;

    const tasks = [...plan.tasks];
    const [task] = tasks.splice(mover, 1);
    tasks.splice(insertAt, 0, task!);
    const candidate: Plan = { ...plan, tasks };
    if (breaksHardEdge(graph, graphOf(candidate))) continue;
    const after = runGates(goal, candidate, gates);
    if (after.length >= findings.length || after.some((f) => !before.has(f.key))) continue;
    const needer = graph.tasks[first]!.id;
    const note: RepairNote = {
      origin: "repair",
      repair: "precondition_closer",
      severity: "info",
      task_id: task!.id,
      message: `moved ${task!.id} to just before ${needer} so that "${fact}" is established before ${needer} needs it`,
      moved: [task!.id],
    };
    return { plan: candidate, findings: after, notes: [note] };
  }
  return null;
}

/** Does some hard edge that `before` satisfies not run in order in `after` (same tasks, moved)? */
function breaksHardEdge(before: PlanGraph, after: PlanGraph): boolean {
  return before.hardSuccs.some((tos, from) =>
    tos.some((to) => {
      if (!before.runsBeforePos(from, to)) return false;
      return !after.runsBefore(before.tasks[from]!.id, before.tasks[to]!.id);
    }),
  );
}

/** A binary min-heap of unit indices: the ready unit listed first goes first. */
class MinHeap {
  private readonly items: number[] = [];
  get size(): number {
    return this.items.length;
  }
  push(value: number): void {
    const a = this.items;
    a.push(value);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]! <= a[i]!) break;
      [a[parent], a[i]] = [a[i]!, a[parent]!];
      i = parent;
    }
  }
  pop(): number {
    const a = this.items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l]! < a[m]!) m = l;
        if (r < a.length && a[r]! < a[m]!) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top;
  }
}
