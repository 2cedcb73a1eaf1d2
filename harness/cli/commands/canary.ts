import type { Command } from "commander";
import { z } from "zod";
import { runCanaries } from "../../canary.ts";
import { EXIT, guarded } from "../exit.ts";
import { parseOptions } from "../options.ts";

const OptionsSchema = z.strictObject({ dir: z.string().min(1).optional(), json: z.boolean().default(false) });

export function register(program: Command): void {
  program
    .command("canary")
    .description("Run the gate canaries: every gate must fire on its must-fire twin only (0 ok, 3 a gate misbehaves)")
    .option("--dir <dir>", "canary folder (default: corpus/canaries)")
    .option("--json", "print the full canary report as JSON")
    .action(guarded((raw: unknown) => {
      const options = parseOptions(OptionsSchema, raw);
      const report = runCanaries({ dir: options.dir });
      if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else if (report.ok) {
        const fixtures = new Set(report.results.map((r) => r.fixture)).size;
        process.stdout.write(`canary: ok (${report.results.length} checks on ${fixtures} fixtures)\n`);
      } else {
        process.stdout.write(`canary: FAILED (${report.failures.length})\n${report.failures.map((f) => `  ${f}`).join("\n")}\n`);
      }
      return report.ok ? EXIT.ok : EXIT.infrastructure;
    }));
}
