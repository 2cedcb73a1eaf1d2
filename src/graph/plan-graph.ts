import type { Plan, Task } from "../formats/plan.ts";

/**
 * The one place that answers ordering and data-flow questions about a plan. Built in O(V+E);
 * `runsBefore` is O(1). Every gate, repair and evidence check asks this module instead of
 * re-deriving order itself.
 *
 * "A runs before B" (docs/design.md §3): A is listed before B and they do not share a parallel group.
 * Dependencies whose endpoints are not tasks of the plan are ignored here (schema_valid reports
 * them); duplicate edges count once.
 */
export class PlanGraph {
  readonly tasks: readonly Task[];
  /** Task id → list position (first occurrence for duplicated ids). */
  readonly index = new Map<string, number>();
  /** Hard-edge successors by task position (in dependency order) and predecessors (in list order), deduplicated. */
  readonly hardPreds: number[][];
  readonly hardSuccs: number[][];
  private readonly groupOf: (string | undefined)[];
  /** Name → positions, per field; each index is built on its first query (most gates ask one or two). */
  private readonly byName: Partial<Record<NameField, Map<string, number[]>>> = {};
  /** Per task position: the verify tasks that target it (an array by position: no hashing). */
  private readonly verifiersOf: (number[] | undefined)[];

  /**
   * Names resolved to positions once, so gates do not repeat hash lookups: -1 where the name is
   * absent or names no task. Per dependency (by its index in `plan.dependencies`): its endpoints.
   * Per task position: the task named by `verifies.task` and by `rollback.trigger`.
   */
  readonly depFrom: Int32Array;
  readonly depTo: Int32Array;
  readonly verifiesTarget: Int32Array;
  readonly rollbackTrigger: Int32Array;
  /** Positions whose id repeats the id of an earlier task. */
  readonly duplicatePositions: number[] = [];

  constructor(readonly plan: Plan) {
    this.tasks = plan.tasks;
    const n = plan.tasks.length;
    plan.tasks.forEach((t, i) => {
      if (this.index.has(t.id)) this.duplicatePositions.push(i);
      else this.index.set(t.id, i);
    });
    const resolve = (id: string | undefined) => (id === undefined ? -1 : (this.index.get(id) ?? -1));
    this.groupOf = plan.tasks.map((t) => t.parallel_group);
    this.hardPreds = Array.from({ length: n }, () => []);
    this.hardSuccs = Array.from({ length: n }, () => []);
    const deps = plan.dependencies;
    this.depFrom = new Int32Array(deps.length);
    this.depTo = new Int32Array(deps.length);
    deps.forEach((d, k) => {
      const from = (this.depFrom[k] = resolve(d.from));
      const to = (this.depTo[k] = resolve(d.to));
      if (d.kind === "hard" && from !== -1 && to !== -1 && from !== to) this.hardSuccs[from]!.push(to);
    });
    // Drop duplicate edges with a marker per target (no hash set: this runs on every plan), then
    // derive the predecessors, which therefore come in list order of their source.
    const lastSource = new Int32Array(n).fill(-1);
    this.hardSuccs.forEach((succs, from) => {
      let kept = 0;
      for (const to of succs) {
        if (lastSource[to] === from) continue;
        lastSource[to] = from;
        succs[kept++] = to;
        this.hardPreds[to]!.push(from);
      }
      succs.length = kept;
    });
    this.verifiersOf = new Array<number[] | undefined>(n);
    this.verifiesTarget = new Int32Array(n);
    this.rollbackTrigger = new Int32Array(n);
    plan.tasks.forEach((t, i) => {
      const target = (this.verifiesTarget[i] = resolve(t.verifies?.task));
      this.rollbackTrigger[i] = resolve(t.rollback?.trigger);
      if (t.kind === "verify" && target !== -1) (this.verifiersOf[target] ??= []).push(i);
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
    return this.namesOf("establishes").get(name) ?? [];
  }
  whoProduces(name: string): readonly number[] {
    return this.namesOf("produces").get(name) ?? [];
  }
  whoMutates(name: string): readonly number[] {
    return this.namesOf("mutates").get(name) ?? [];
  }
  whoDestroys(name: string): readonly number[] {
    return this.namesOf("destroys").get(name) ?? [];
  }

  private namesOf(field: NameField): Map<string, number[]> {
    let map = this.byName[field];
    if (!map) {
      map = new Map();
      for (let i = 0; i < this.tasks.length; i++) for (const name of this.tasks[i]![field]) push(map, name, i);
      this.byName[field] = map;
    }
    return map;
  }

  /** Verify tasks whose `verifies.task` is the task at this position. */
  verifiersOfPos(pos: number): readonly number[] {
    return this.verifiersOf[pos] ?? [];
  }

  /**
   * Does some task in `positions` (ascending list order) run before position `b`? Stops at the
   * first position at or after b, so a long list of later tasks costs nothing.
   */
  anyRunsBefore(positions: readonly number[], b: number): boolean {
    for (const p of positions) {
      if (p >= b) return false;
      if (!this.sameGroup(p, b)) return true;
    }
    return false;
  }

  /** Positions of each parallel group's tasks, in list order; groups in order of first appearance. */
  groups(): ReadonlyMap<string, readonly number[]> {
    if (!this.groupsCache) {
      this.groupsCache = new Map();
      this.groupOf.forEach((g, i) => {
        if (g !== undefined) push(this.groupsCache!, g, i);
      });
    }
    return this.groupsCache;
  }
  private groupsCache: Map<string, number[]> | undefined;

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
    const stack = new Int32Array(n);
    let top = 0;
    // The DFS work stack as two typed arrays (node, next successor) rather than a tuple per frame.
    const workNode = new Int32Array(n);
    const workEdge = new Int32Array(n);
    const out: number[][] = [];
    let counter = 0;
    for (let root = 0; root < n; root++) {
      if (idx[root] !== -1) continue;
      let depth = 0;
      workNode[0] = root;
      workEdge[0] = 0;
      idx[root] = low[root] = counter++;
      stack[top++] = root;
      onStack[root] = 1;
      while (depth >= 0) {
        const v = workNode[depth]!;
        const succs = this.hardSuccs[v]!;
        const i = workEdge[depth]!;
        if (i < succs.length) {
          workEdge[depth] = i + 1;
          const w = succs[i]!;
          if (idx[w] === -1) {
            idx[w] = low[w] = counter++;
            stack[top++] = w;
            onStack[w] = 1;
            depth++;
            workNode[depth] = w;
            workEdge[depth] = 0;
          } else if (onStack[w]) low[v] = Math.min(low[v]!, idx[w]!);
          continue;
        }
        depth--;
        if (depth >= 0) {
          const parent = workNode[depth]!;
          low[parent] = Math.min(low[parent]!, low[v]!);
        }
        if (low[v] !== idx[v]) continue;
        if (stack[top - 1] === v) {
          // A single task with no cycle through it: the common case, no array needed.
          top--;
          onStack[v] = 0;
          continue;
        }
        const comp: number[] = [];
        let w: number;
        do {
          w = stack[--top]!;
          onStack[w] = 0;
          comp.push(w);
        } while (w !== v);
        out.push(comp.sort((a, b) => a - b));
      }
    }
    this.cyclesCache = out.sort((a, b) => a[0]! - b[0]!);
    return this.cyclesCache;
  }
  private cyclesCache: number[][] | undefined;

  /**
   * "a depends on b" (docs/design.md §5): a hard edge b → a, or a precondition of a that b
   * establishes (named or not), or a is a verify task with subject `mutation_output` whose
   * verifies.task is b. A pre-state or constraint check must run before its mutation (§4), so it
   * never depends on it.
   */
  dependsOn(a: string, b: string): boolean {
    const pa = this.index.get(a);
    const pb = this.index.get(b);
    if (pa === undefined || pb === undefined) return false;
    if (this.hardPreds[pa]!.includes(pb)) return true;
    const ta = this.tasks[pa]!;
    const tb = this.tasks[pb]!;
    if (ta.preconditions.some((p) => tb.establishes.includes(p.fact))) return true;
    return ta.kind === "verify" && ta.verifies?.task === b && ta.verifies.subject === "mutation_output";
  }
}

type NameField = "establishes" | "produces" | "mutates" | "destroys";

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
