import { isHighBlast } from "../formats/plan.ts";
import { gateFinding, type Gate } from "./finding.ts";

/** Gate `rollback_present`: a high-blast reversible mutate task needs a rollback. Presence only; credibility is the next gate's. */
export const rollbackPresent: Gate = (_goal, plan) =>
  plan.tasks
    .filter((t) => t.kind === "mutate" && t.reversibility === "reversible" && isHighBlast(t) && !t.rollback)
    .map((t) => gateFinding("rollback_missing", t.id, "rollback", `high-blast reversible task ${t.id} has no rollback`));
