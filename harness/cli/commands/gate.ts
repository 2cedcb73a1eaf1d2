import { join } from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import type { GateResult } from "../../baseline/gate.ts";
import { snapshotOfRun } from "../../baseline/io.ts";
import { gateVerdict, judge } from "../../baseline/judge.ts";
import { gateJUnit } from "../../baseline/junit.ts";
import type { CommandContext } from "../context.ts";
import { writeOutputFile } from "../../output.ts";
import { RUN_FILES, writeFileAtomic } from "../../run/store.ts";
import { parseOptions } from "../options.ts";
import { jsonText } from "../printing.ts";

const OptionsSchema = z.strictObject({
  baseline: z.string().min(1),
  policy: z.string().min(1).default("gate.yaml"),
  junit: z.string().min(1).optional(),
  json: z.boolean().default(false),
  corpus: z.string().min(1).default("corpus"),
});

const MARK = { pass: "ok  ", fail: "FAIL", inconclusive: "??  ", error: "ERR " } as const;

export function formatGate(r: GateResult, description?: string): string {
  const lines = [...(description ? [`policy: ${description}`] : []), ...r.checks.map((c) => `${MARK[c.outcome]} ${c.name}: ${c.message}`)];
  return `${lines.join("\n")}\n${gateVerdict(r)}\n`;
}

export function register(program: Command, { host, action, warn }: CommandContext): void {
  program
    .command("gate")
    .description("Release gate against a baseline and a pre-registered policy: 0 pass, 1 regression, 2 inconclusive, 3 infrastructure error")
    .argument("<dir>", "run directory")
    .requiredOption("--baseline <file>", "published baseline (baselines/NAME.json)")
    .option("--policy <file>", "pre-registered gate policy (YAML): gate.yaml holds the product's floors; gate.sim.yaml is calibrated on the default sim", "gate.yaml")
    .option("--junit <file>", "JUnit XML output (default: DIR/gate-junit.xml)")
    .option("--json", "print the gate result as JSON")
    .option("--corpus <dir>", "corpus the run was made on", "corpus")
    .action(action((dir: string, raw: unknown) => {
      const options = parseOptions(OptionsSchema, raw);
      const { result, policy } = judge(snapshotOfRun(dir, options.corpus, { warn }), options.baseline, options.policy);
      const junit = gateJUnit(result);
      // The default lands in the run folder, written as its files are (never through a link); a file the user names is theirs.
      if (options.junit === undefined) writeFileAtomic(join(dir, RUN_FILES.junit), junit);
      else writeOutputFile(options.junit, junit, "--junit");
      host.stdout.write(options.json ? jsonText(result) : formatGate(result, policy.description));
      return result.exit;
    }));
}
