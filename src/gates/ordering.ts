import type { GateFinding } from "../formats/findings.ts";
import { gateFinding, type Gate } from "./finding.ts";

/**
 * Gate `ordering_sane`: a hard edge whose `to` does not run after its `from` (listed earlier, or
 * in the same parallel group). A cycle's back edge fires here too.
 */
export const orderingSane: Gate = (_goal, _plan, graph) => {
  const out: GateFinding[] = [];
  graph.hardSuccs.forEach((succs, from) => {
    for (const to of succs) {
      if (graph.runsBeforePos(from, to)) continue;
      const a = graph.tasks[from]!.id;
      const b = graph.tasks[to]!.id;
      const why = graph.sameGroup(from, to) ? "they share a parallel group" : `${b} is listed first`;
      out.push(gateFinding("order_violates_dependency", b, `${a}->${b}`, `${b} has a hard dependency on ${a} but does not run after it: ${why}`));
    }
  });
  return out;
};
