import type { GateFinding } from "../formats/findings.ts";
import { isHighBlast } from "../formats/plan.ts";
import { gateFinding, type Gate } from "./finding.ts";

/**
 * Gate `verification_present`: existence only (order is verification_order's job). A high-blast
 * mutate task needs an output check; an irreversible one also needs a check of the state before it.
 */
export const verificationPresent: Gate = (_goal, plan, graph) => {
  const out: GateFinding[] = [];
  plan.tasks.forEach((t, i) => {
    if (t.kind !== "mutate") return;
    let outputChecked = false;
    let stateChecked = false;
    for (const v of graph.verifiersOfPos(i)) {
      if (graph.tasks[v]!.verifies!.subject === "mutation_output") outputChecked = true;
      else stateChecked = true; // pre_state or constraint
    }
    if (isHighBlast(t) && !outputChecked)
      out.push(gateFinding("verification_missing", t.id, "mutation_output", `high-blast task ${t.id} has no verify task checking its mutation_output`));
    if (t.reversibility === "irreversible" && !stateChecked)
      out.push(
        gateFinding("no_return_check_missing", t.id, "pre_state", `irreversible task ${t.id} has no verify task checking its pre_state or a constraint`),
      );
  });
  return out;
};
