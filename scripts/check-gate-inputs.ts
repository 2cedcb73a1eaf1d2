// Preflight of scripts/nightly.sh: the baseline and the gate policy are read and checked against
// each other before the sweep spends anything. Exit 0 when both are usable; otherwise one line
// naming the file and the key path, exit 2, as the CLI reports bad input.
//
//   node dist/scripts/check-gate-inputs.js BASELINE POLICY
import { readSnapshot } from "../harness/baseline/io.ts";
import { GatePolicySchema, policyProblem } from "../harness/baseline/policy.ts";
import { reportFatal } from "../harness/cli/exit.ts";
import { InputError, loadFile } from "../src/formats/load.ts";

const [baselineFile, policyFile] = process.argv.slice(2);
try {
  if (!baselineFile || !policyFile) throw new InputError("command line", "", "usage: check-gate-inputs BASELINE POLICY");
  const policy = loadFile(policyFile, GatePolicySchema);
  const baseline = readSnapshot(baselineFile);
  // The run will report the baseline's metrics: a policy naming one the baseline lacks fails now, not after the sweep.
  const problem = policyProblem(policy, baseline, baseline);
  if (problem) throw new InputError(policyFile, problem.path, problem.message);
} catch (e) {
  await reportFatal(e);
}
