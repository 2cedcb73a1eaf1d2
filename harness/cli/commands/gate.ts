import type { Command } from "commander";
import { z } from "zod";
import type { GateResult } from "../../baseline/gate.ts";
import { gateVerdict } from "../../baseline/judge.ts";
import { gate, GateOptionsSchema } from "../../api/baseline.ts";
import type { CommandContext } from "../context.ts";
import { corpusOption, CORPUS_HELP, parseOptions } from "../options.ts";
import { jsonText } from "../printing.ts";

const OptionsSchema = GateOptionsSchema.omit({ run: true }).extend({ corpus: corpusOption, json: z.boolean().default(false) });

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
    .option(
      "--policy <file>",
      "pre-registered gate policy (YAML): gate.yaml holds the product's floors; gate.sim.yaml is calibrated on the default sim (default: the shipped gate.yaml)",
    )
    .option("--junit <file>", "JUnit XML output (default: DIR/gate-junit.xml)")
    .option("--json", "print the gate result as JSON")
    .option("--corpus <dir>", `corpus the run was made on (${CORPUS_HELP})`)
    .action(
      action((dir: string, raw: unknown) => {
        const { json, ...options } = parseOptions(OptionsSchema, raw);
        const { result, policy } = gate({ ...options, run: dir }, { warn });
        host.stdout.write(json ? jsonText(result) : formatGate(result, policy.description));
        return result.exit;
      }),
    );
}
