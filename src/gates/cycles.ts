import { gateFinding, listIds, type Gate } from "./finding.ts";

/** Gate `no_dep_cycles`: one finding per hard-edge cycle (strongly connected component), on its first task. */
export const noDepCycles: Gate = (_goal, _plan, graph) =>
  graph.cycles().map((component) => {
    const ids = component.map((p) => graph.tasks[p]!.id);
    return gateFinding("dependency_cycle", ids[0]!, ids.join(","), `hard dependencies form a cycle through ${listIds(ids)}`);
  });
