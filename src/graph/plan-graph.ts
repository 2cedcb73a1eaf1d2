import type { Plan, Task } from "../formats/plan.ts";

/**
 * The one place that answers ordering and data-flow questions about a plan. Built in O(V+E);
 * `runsBefore` is O(1). Every gate, repair and evidence check asks this module instead of
 * re-deriving order itself.
 *
 * "A runs before B" (DESIGN.md §3): A is listed before B and they do not share a parallel group.
 * Dependencies whose endpoints are not tasks of the plan are ignored here (schema_valid reports
 * them); duplicate edges count once.
 */
export class PlanGraph {
  readonly tasks: readonly Task[];
  /** Task id → list position (first occurrence for duplicated ids). */
  readonly index = new Map<string, number>();
  /** Hard-edge predecessors / successors by task position, deduplicated. */
  readonly hardPreds: number[][];
  readonly hardSuccs: number[][];
  private readonly groupOf: (string | undefined)[];
  private readonly byName: Record<"establishes" | "produces" | "mutates" | "destroys", Map<string, number[]>>;
  private readonly verifiersOf = new Map<number, number[]>();

  constructor(readonly plan: Plan) {
    this.tasks = plan.tasks;
    const n = plan.tasks.length;
    plan.tasks.forEach((t, i) => {
      if (!this.index.has(t.id)) this.index.set(t.id, i);
    });
    this.groupOf = plan.tasks.map((t) => t.parallel_group);
    this.hardPreds = Array.from({ length: n }, () => []);
    this.hardSuccs = Array.from({ length: n }, () => []);
    const seen = new Set<string>();
    for (const d of plan.dependencies) {
      if (d.kind !== "hard") continue;
      const from = this.index.get(d.from);
      const to = this.index.get(d.to);
      if (from === undefined || to === undefined || from === to) continue;
      const k = `${from}>${to}`;
      if (seen.has(k)) continue;
      seen.add(k);
      this.hardSuccs[from]!.push(to);
      this.hardPreds[to]!.push(from);
    }
    this.byName = { establishes: new Map(), produces: new Map(), mutates: new Map(), destroys: new Map() };
    plan.tasks.forEach((t, i) => {
      for (const field of ["establishes", "produces", "mutates", "destroys"] as const) {
        for (const name of t[field]) push(this.byName[field], name, i);
      }
      if (t.kind === "verify" && t.verifies) {
        const target = this.index.get(t.verifies.task);
        if (target !== undefined) push(this.verifiersOf, target, i);
      }
    });
  }

  has(id: string): boolean {
    return this.index.has(id);
  }

  pos(id: string): number | undefined {
    return this.index.get(id);
  }

  task(id: string): Task | undefined {
    const i = this.index.get(id);
    return i === undefined ? undefined : this.tasks[i];
  }

  sameGroup(a: number, b: number): boolean {
    const g = this.groupOf[a];
    return g !== undefined && g === this.groupOf[b];
  }

  /** Positions a and b: a is listed before b and they do not share a parallel group. */
  runsBeforePos(a: number, b: number): boolean {
    return a < b && !this.sameGroup(a, b);
  }

  runsBefore(a: string, b: string): boolean {
    const pa = this.index.get(a);
    const pb = this.index.get(b);
    return pa !== undefined && pb !== undefined && this.runsBeforePos(pa, pb);
  }

  /** Positions of tasks that establish / produce / mutate / destroy a name, in list order. */
  whoEstablishes(name: string): readonly number[] {
    return this.byName.establishes.get(name) ?? [];
  }
  whoProduces(name: string): readonly number[] {
    return this.byName.produces.get(name) ?? [];
  }
  whoMutates(name: string): readonly number[] {
    return this.byName.mutates.get(name) ?? [];
  }
  whoDestroys(name: string): readonly number[] {
    return this.byName.destroys.get(name) ?? [];
  }

  /** Verify tasks whose `verifies.task` is the task at this position. */
  verifiersOfPos(pos: number): readonly number[] {
    return this.verifiersOf.get(pos) ?? [];
  }

  /** Does some task in `positions` run before position `b`? O(1) via the earliest one. */
  anyRunsBefore(positions: readonly number[], b: number): boolean {
    return positions.some((p) => this.runsBeforePos(p, b));
  }

  /**
   * Strongly connected components of the hard-edge graph with more than one task (self-loops are
   * excluded by construction). Each component lists positions in list order; components are
   * ordered by their first task. Iterative Tarjan, O(V+E).
   */
  cycles(): number[][] {
    if (this.cyclesCache) return this.cyclesCache;
    const n = this.tasks.length;
    const idx = new Int32Array(n).fill(-1);
    const low = new Int32Array(n);
    const onStack = new Uint8Array(n);
    const stack: number[] = [];
    const out: number[][] = [];
    let counter = 0;
    for (let root = 0; root < n; root++) {
      if (idx[root] !== -1) continue;
      const work: [number, number][] = [[root, 0]];
      idx[root] = low[root] = counter++;
      stack.push(root);
      onStack[root] = 1;
      while (work.length) {
        const frame = work[work.length - 1]!;
        const [v, i] = frame;
        const succs = this.hardSuccs[v]!;
        if (i < succs.length) {
          frame[1]++;
          const w = succs[i]!;
          if (idx[w] === -1) {
            idx[w] = low[w] = counter++;
            stack.push(w);
            onStack[w] = 1;
            work.push([w, 0]);
          } else if (onStack[w]) low[v] = Math.min(low[v]!, idx[w]!);
          continue;
        }
        work.pop();
        const parent = work[work.length - 1];
        if (parent) low[parent[0]] = Math.min(low[parent[0]]!, low[v]!);
        if (low[v] === idx[v]) {
          const comp: number[] = [];
          let w: number;
          do {
            w = stack.pop()!;
            onStack[w] = 0;
            comp.push(w);
          } while (w !== v);
          if (comp.length > 1) out.push(comp.sort((a, b) => a - b));
        }
      }
    }
    this.cyclesCache = out.sort((a, b) => a[0]! - b[0]!);
    return this.cyclesCache;
  }
  private cyclesCache: number[][] | undefined;

  /**
   * "a depends on b" (DESIGN.md §5): a hard edge b → a, or a precondition of a that b
   * establishes (named or not), or a is a verify task whose verifies.task is b.
   */
  dependsOn(a: string, b: string): boolean {
    const pa = this.index.get(a);
    const pb = this.index.get(b);
    if (pa === undefined || pb === undefined) return false;
    if (this.hardPreds[pa]!.includes(pb)) return true;
    const ta = this.tasks[pa]!;
    const tb = this.tasks[pb]!;
    if (ta.preconditions.some((p) => tb.establishes.includes(p.fact))) return true;
    return ta.kind === "verify" && ta.verifies?.task === b;
  }
}

function push<K>(map: Map<K, number[]>, key: K, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Graphs are cached per plan object: plans are immutable once parsed. */
const cache = new WeakMap<Plan, PlanGraph>();
export function graphOf(plan: Plan): PlanGraph {
  let g = cache.get(plan);
  if (!g) {
    g = new PlanGraph(plan);
    cache.set(plan, g);
  }
  return g;
}
