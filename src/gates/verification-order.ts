import type { GateFinding } from "../formats/findings.ts";
import { gateFinding, type Gate } from "./finding.ts";

/**
 * Gate `verification_order`, keyed on the data subject rather than position alone: a check of the
 * state before a mutation must run before it; a check of the mutation's output must run after it
 * and read something the mutation produces. Findings sit on the verify task.
 */
export const verificationOrder: Gate = (_goal, plan, graph) => {
  const out: GateFinding[] = [];
  plan.tasks.forEach((v, i) => {
    if (v.kind !== "verify" || !v.verifies) return;
    const target = graph.verifiesTarget[i]!;
    if (target === -1) return;
    const m = graph.tasks[target]!;
    const { subject, reads } = v.verifies;
    if (subject !== "mutation_output") {
      if (!graph.runsBeforePos(i, target))
        out.push(
          gateFinding(
            "verification_reads_stale_state",
            v.id,
            m.id,
            `${v.id} checks the ${subject} of ${m.id} but does not run before it, so it reads the state after the change`,
          ),
        );
      return;
    }
    if (!graph.runsBeforePos(target, i))
      out.push(gateFinding("verification_precedes_mutation", v.id, m.id, `${v.id} checks the output of ${m.id} but does not run after it`));
    if (!reads.some((name) => m.produces.includes(name)))
      out.push(gateFinding("verification_ignores_output", v.id, m.id, `${v.id} checks the output of ${m.id} but reads nothing ${m.id} produces`));
  });
  return out;
};
