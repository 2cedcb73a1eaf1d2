import type { Command } from "commander";
import { z } from "zod";
import { runCanaries } from "../../canary.ts";
import { EXIT } from "../exit.ts";
import { jsonText } from "../printing.ts";
import type { CommandContext } from "../context.ts";
import { collect, parseOptions } from "../options.ts";
import { loadPacks } from "../../../src/packs/load.ts";

const OptionsSchema = z.strictObject({ dir: z.string().min(1).optional(), pack: z.array(z.string().min(1)).default([]), json: z.boolean().default(false) });

export function register(program: Command, { host, action }: CommandContext): void {
  program
    .command("canary")
    .description(
      "Run the gate canaries, and each --pack's rule canaries: every gate and rule must fire on its must-fire twin only (0 ok, 2 invalid pack, 3 a gate or rule misbehaves)",
    )
    .option("--dir <dir>", "canary folder (default: corpus/canaries)")
    .option("--pack <dir>", "also run a domain pack's canaries (repeatable)", collect)
    .option("--json", "print the full canary report as JSON")
    .action(
      action((raw: unknown) => {
        const options = parseOptions(OptionsSchema, raw);
        const report = runCanaries({ dir: options.dir, packs: loadPacks(options.pack) });
        if (options.json) host.stdout.write(jsonText(report));
        else if (report.ok) {
          const fixtures = new Set(report.results.map((r) => r.fixture)).size;
          host.stdout.write(`canary: ok (${report.results.length} checks on ${fixtures} fixtures)\n`);
        } else {
          host.stdout.write(`canary: FAILED (${report.failures.length})\n${report.failures.map((f) => `  ${f}`).join("\n")}\n`);
        }
        return report.ok ? EXIT.ok : EXIT.infrastructure;
      }),
    );
}
