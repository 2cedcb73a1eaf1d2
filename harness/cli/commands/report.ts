import type { Command } from "commander";
import { z } from "zod";
import { writeReport } from "../../report/write.ts";
import { EXIT, guarded } from "../exit.ts";
import { parseOptions } from "../options.ts";

const OptionsSchema = z.strictObject({ corpus: z.string().min(1).default("corpus") });

export function register(program: Command): void {
  program
    .command("report")
    .description("Compute metrics and write summary.json, trials.csv, report.md and report.html into a run directory")
    .argument("<dir>", "run directory (manifest.json, trials.jsonl)")
    .option("--corpus <dir>", "corpus the run was made on (ground truth)", "corpus")
    .action(guarded((dir: string, raw: unknown) => {
      const options = parseOptions(OptionsSchema, raw);
      for (const path of writeReport(dir, options.corpus)) process.stdout.write(`wrote ${path}\n`);
      return EXIT.ok;
    }));
}
