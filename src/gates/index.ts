import type { GateFinding, GateId } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";
import { graphOf } from "../graph/plan-graph.ts";
import { noDepCycles } from "./cycles.ts";
import type { Gate } from "./finding.ts";
import { orderingSane } from "./ordering.ts";
import { parallelSafety } from "./parallel-safety.ts";
import { preconditionsClosed } from "./preconditions.ts";
import { rollbackCredibility } from "./rollback-credibility.ts";
import { rollbackPresent } from "./rollback-present.ts";
import { schemaValid } from "./structure.ts";
import { verificationOrder } from "./verification-order.ts";
import { verificationPresent } from "./verification-present.ts";
import type { CompiledPack } from "../packs/compile.ts";
import { attributeOwners, packFindings } from "../packs/evaluate.ts";

/** The gates in their fixed run order (docs/design.md §4). Bump a version whenever its gate's output can change. */
const GATES: readonly { id: GateId; version: number; run: Gate }[] = [
  { id: "schema_valid", version: 1, run: schemaValid },
  { id: "no_dep_cycles", version: 1, run: noDepCycles },
  { id: "ordering_sane", version: 1, run: orderingSane },
  { id: "preconditions_closed", version: 1, run: preconditionsClosed },
  { id: "verification_present", version: 1, run: verificationPresent },
  { id: "verification_order", version: 1, run: verificationOrder },
  { id: "rollback_present", version: 1, run: rollbackPresent },
  { id: "rollback_credibility", version: 1, run: rollbackCredibility },
  { id: "parallel_safety", version: 1, run: parallelSafety },
];

/** `gate@version` per gate, recorded in run manifests. */
export const GATE_VERSIONS = Object.fromEntries(GATES.map((g) => [g.id, `${g.id}@${g.version}`])) as Record<GateId, string>;

export interface RunGatesOptions {
  /** Gates to leave out (canary self-tests only: a sweep never skips a gate). */
  skip?: readonly GateId[];
  /** Enabled domain packs: their rules run after the built-in gates, as gates `pack.<name>`. */
  packs?: readonly CompiledPack[];
}

/**
 * Run every gate on the plan, then every enabled pack: the single entry point that the loop, the
 * repairs, critic-only trials and `fieldtest check` share. Findings come in gate order (packs
 * after the built-in gates, in name order), then by the list position of their task (plan-level
 * findings first), then by key, so the output does not depend on the order of the dependencies
 * array. Keys are unique: only duplicated task ids (themselves a schema_invalid finding) could
 * make two findings collide, and the first one is kept.
 */
export function runGates(goal: Goal, plan: Plan, options: RunGatesOptions = {}): GateFinding[] {
  const graph = graphOf(plan);
  const skip = new Set(options.skip ?? []);
  const position = (f: GateFinding) => (f.task_id === null ? -1 : (graph.pos(f.task_id) ?? -1));
  const seen = new Set<string>();
  const out: GateFinding[] = [];
  const packs = options.packs ?? [];
  const owners = attributeOwners(packs);
  const runs = [
    ...GATES.filter((gate) => !skip.has(gate.id)).map((gate) => () => gate.run(goal, plan, graph)),
    ...packs.map((pack) => () => packFindings(goal, plan, [pack], owners)),
  ];
  for (const run of runs) {
    const findings = run().sort((a, b) => position(a) - position(b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const f of findings) {
      if (seen.has(f.key)) continue;
      seen.add(f.key);
      out.push(f);
    }
  }
  return out;
}

export { structuralViolations, type StructuralViolation } from "./structure.ts";
