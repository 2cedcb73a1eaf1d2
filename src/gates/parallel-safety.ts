import type { GateFinding } from "../formats/findings.ts";
import { isHighBlast } from "../formats/plan.ts";
import { gateFinding, type Gate } from "./finding.ts";

/**
 * Gate `parallel_safety`: one finding per offending pair in a group, on the later-listed task.
 * Shared resources are found through one index of names (which group touched a name, and which
 * of its tasks), so the cost follows the pairs that actually share something rather than every
 * pair of every group.
 */
export const parallelSafety: Gate = (_goal, _plan, graph) => {
  const out: GateFinding[] = [];
  const touched = new Map<string, { group: string; by: number[] }>();
  for (const [group, members] of graph.groups()) {
    const highBlast = members.filter((p) => isHighBlast(graph.tasks[p]!));
    highBlast.forEach((later, k) => {
      for (const earlier of highBlast.slice(0, k)) {
        const a = graph.tasks[earlier]!.id;
        const b = graph.tasks[later]!.id;
        out.push(gateFinding("parallel_high_blast", b, a, `high-blast tasks ${a} and ${b} run concurrently in parallel group "${group}"`));
      }
    });

    // (earlier, later) → the names both change; filled only when two members meet on a name.
    const shared = new Map<string, { earlier: number; later: number; names: string[] }>();
    for (const p of members) {
      const t = graph.tasks[p]!;
      for (const list of [t.mutates, t.destroys]) {
        for (const name of list) {
          let entry = touched.get(name);
          if (!entry || entry.group !== group) touched.set(name, (entry = { group, by: [] }));
          if (entry.by[entry.by.length - 1] === p) continue; // this task named it already
          for (const earlier of entry.by) {
            const pairKey = `${earlier},${p}`;
            const pair = shared.get(pairKey) ?? { earlier, later: p, names: [] };
            pair.names.push(name);
            shared.set(pairKey, pair);
          }
          entry.by.push(p);
        }
      }
    }
    for (const { earlier, later, names } of shared.values()) {
      const a = graph.tasks[earlier]!.id;
      const b = graph.tasks[later]!.id;
      const what = names
        .sort()
        .map((n) => `"${n}"`)
        .join(", ");
      out.push(gateFinding("parallel_shared_resource", b, a, `${a} and ${b} both change ${what} while running concurrently in parallel group "${group}"`));
    }
  }
  return out;
};
