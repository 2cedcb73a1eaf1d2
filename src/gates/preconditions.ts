import type { GateFinding } from "../formats/findings.ts";
import { gateFinding, type Gate } from "./finding.ts";

/**
 * Gate `preconditions_closed`. A precondition that names its establisher is judged by that name
 * alone; one that does not is closed when the goal's facts hold it or a task that runs before
 * establishes it. References to tasks that do not exist are schema_valid's to report.
 */
export const preconditionsClosed: Gate = (goal, plan, graph) => {
  const envFacts = new Set(goal.constraints.facts);
  const out: GateFinding[] = [];
  plan.tasks.forEach((t, i) => {
    for (const { fact, established_by: by } of t.preconditions) {
      if (by === "env") {
        if (!envFacts.has(fact))
          out.push(
            gateFinding(
              "precondition_wrong_establisher",
              t.id,
              fact,
              `${t.id} expects the environment to provide "${fact}", which is not among the goal's constraints.facts`,
            ),
          );
      } else if (by !== undefined) {
        const named = graph.pos(by);
        if (named === undefined) continue;
        if (!graph.tasks[named]!.establishes.includes(fact))
          out.push(gateFinding("precondition_wrong_establisher", t.id, fact, `${t.id} expects ${by} to establish "${fact}", but ${by} does not establish it`));
        else if (!graph.runsBeforePos(named, i))
          out.push(
            gateFinding("precondition_wrong_establisher", t.id, fact, `${t.id} expects ${by} to establish "${fact}", but ${by} does not run before ${t.id}`),
          );
      } else if (!envFacts.has(fact) && !graph.anyRunsBefore(graph.whoEstablishes(fact), i)) {
        out.push(
          gateFinding(
            "precondition_unestablished",
            t.id,
            fact,
            `no task that runs before ${t.id} establishes "${fact}", and the goal's constraints.facts do not hold it`,
          ),
        );
      }
    }
  });
  return out;
};
