import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { InputError, loadFile } from "../../../src/formats/load.ts";
import { diffSnapshots } from "../../baseline/diff.ts";
import { evaluateGate, type GateResult } from "../../baseline/gate.ts";
import { readSnapshot, snapshotOfRun } from "../../baseline/io.ts";
import { gateJUnit } from "../../baseline/junit.ts";
import { GatePolicySchema, policyProblem } from "../../baseline/policy.ts";
import { guarded } from "../exit.ts";
import { parseOptions } from "../options.ts";

const OptionsSchema = z.strictObject({
  baseline: z.string().min(1),
  policy: z.string().min(1).default("gate.yaml"),
  junit: z.string().min(1).optional(),
  json: z.boolean().default(false),
  corpus: z.string().min(1).default("corpus"),
});

const MARK = { pass: "ok  ", fail: "FAIL", inconclusive: "??  ", error: "ERR " } as const;

export function formatGate(r: GateResult): string {
  const lines = r.checks.map((c) => `${MARK[c.outcome]} ${c.name}: ${c.message}`);
  const verdict =
    r.decision === "pass"
      ? "gate: pass"
      : r.decision === "regression"
        ? `gate: regression in ${r.failed.join(", ")}`
        : r.decision === "inconclusive"
          ? `gate: inconclusive${r.trials_needed !== null ? `: needs at least ${r.trials_needed} trials per item` : ""}`
          : `gate: infrastructure error (${r.failed.join(", ")})`;
  return `${lines.join("\n")}\n${verdict}\n`;
}

export function register(program: Command): void {
  program
    .command("gate")
    .description("Release gate against a baseline and a pre-registered policy: 0 pass, 1 regression, 2 inconclusive, 3 infrastructure error")
    .argument("<dir>", "run directory")
    .requiredOption("--baseline <file>", "published baseline (baselines/NAME.json)")
    .option("--policy <file>", "pre-registered gate policy (YAML)", "gate.yaml")
    .option("--junit <file>", "JUnit XML output (default: DIR/gate-junit.xml)")
    .option("--json", "print the gate result as JSON")
    .option("--corpus <dir>", "corpus the run was made on", "corpus")
    .action(guarded((dir: string, raw: unknown) => {
      const options = parseOptions(OptionsSchema, raw);
      const policy = loadFile(options.policy, GatePolicySchema);
      const baseline = readSnapshot(options.baseline);
      const candidate = snapshotOfRun(dir, options.corpus);
      const problem = policyProblem(policy, candidate, baseline);
      if (problem) throw new InputError(options.policy, problem.path, problem.message);
      const result = evaluateGate(policy, baseline, candidate, diffSnapshots(baseline, candidate, policy.alpha));
      writeFileSync(options.junit ?? join(dir, "gate-junit.xml"), gateJUnit(result));
      process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : formatGate(result));
      return result.exit;
    }));
}
