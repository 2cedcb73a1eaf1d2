// fieldtest's API from plain JavaScript (docs/guides/api.md): a small sweep on the sim, then the
// release gate against the shipped sim baseline. Run it from the folder where fieldtest is
// installed (`npm install fieldtest`, then `node api.mjs`): the run folder goes to ./runs/, the
// corpus, baseline and policy come from the package. It exits with the gate's code.
import { join } from "node:path";
import { gate, PACKAGE_ROOT, runSweep } from "fieldtest";

// Three corpus goals, two trials each, on the embedded simulator (the default provider).
const sweep = await runSweep({ suite: ["corpus"], only: ["apigw-02-*", "apigw-03-*", "db-01-*"], trials: 2 });
if (sweep.exitCode !== 0 || sweep.summary === null) {
  console.error(`sweep stopped with exit code ${sweep.exitCode}`);
  process.exit(sweep.exitCode || 3);
}
const { items, trials } = sweep.summary.counts;
const flips = sweep.summary.metrics.engine_flip_rate;
console.log(`sweep: ${sweep.dir}: ${items.corpus} goals, ${trials.corpus} trials; engine_flip_rate ${flips.value ?? "n/a"} over ${flips.n_items} items`);

// The gate judges the run against a baseline under a pre-registered policy (both ship with fieldtest).
const judged = gate({ run: sweep.dir, baseline: join(PACKAGE_ROOT, "baselines", "sim-default.json"), policy: join(PACKAGE_ROOT, "gate.sim.yaml") });
console.log(`gate: ${judged.result.decision} (exit ${judged.exitCode}); failed: ${judged.result.failed.join(", ") || "none"}; JUnit ${judged.junit}`);
process.exit(judged.exitCode);
