import { InputError, loadFile } from "../../src/formats/load.ts";
import { diffSnapshots, type DiffResult } from "./diff.ts";
import { evaluateGate, type GateResult } from "./gate.ts";
import { readSnapshot } from "./io.ts";
import { GatePolicySchema, policyProblem, type GatePolicy } from "./policy.ts";
import type { Snapshot } from "../../src/formats/snapshot.ts";

/** Everything the release gate decided about one candidate, and what it decided on. */
interface Judgement {
  policy: GatePolicy;
  baseline: Snapshot;
  candidate: Snapshot;
  diff: DiffResult;
  result: GateResult;
}

/**
 * The release gate on a candidate snapshot: read the baseline and the pre-registered policy,
 * refuse a policy the runs cannot judge (bad input naming the policy file), diff, evaluate.
 * `fieldtest gate` and the decision report both call this, so they can never disagree.
 */
export function judge(candidate: Snapshot, baselineFile: string, policyFile: string): Judgement {
  const policy = loadFile(policyFile, GatePolicySchema);
  const baseline = readSnapshot(baselineFile);
  const problem = policyProblem(policy, candidate, baseline);
  if (problem) throw new InputError(policyFile, problem.path, problem.message);
  const diff = diffSnapshots(baseline, candidate, policy.alpha);
  return { policy, baseline, candidate, diff, result: evaluateGate(policy, baseline, candidate, diff) };
}

/** The gate's decision in one line, as `fieldtest gate` prints it last and the report's banner heads with it. */
export function gateVerdict(r: GateResult): string {
  if (r.decision === "pass") return "gate: pass";
  if (r.decision === "regression") return `gate: regression in ${r.failed.join(", ")}`;
  if (r.decision === "inconclusive") {
    const open = r.checks.filter((c) => c.outcome === "inconclusive").map((c) => c.name);
    const named = open.length > 6 ? `${open.slice(0, 5).join(", ")} and ${open.length - 5} more` : open.join(", ");
    return `gate: inconclusive in ${named}${r.trials_needed !== null ? `: needs at least ${r.trials_needed} trials per item` : ""}`;
  }
  return `gate: infrastructure error (${r.failed.join(", ")})`;
}
