import type { Command } from "commander";
import { z } from "zod";
import { parseOptions } from "../../baseline/options.ts";
import { writeReport } from "../../report/write.ts";
import { EXIT, exitWith, reportFatal } from "../exit.ts";

const OptionsSchema = z.strictObject({ corpus: z.string().min(1).default("corpus") });

export function register(program: Command): void {
  program
    .command("report")
    .description("Compute metrics and write summary.json, trials.csv, report.md and report.html into a run directory")
    .argument("<dir>", "run directory (manifest.json, trials.jsonl)")
    .option("--corpus <dir>", "corpus the run was made on (ground truth)", "corpus")
    .action((dir: string, raw: unknown) => {
      try {
        const options = parseOptions(OptionsSchema, raw);
        for (const path of writeReport(dir, options.corpus)) process.stdout.write(`wrote ${path}\n`);
        exitWith(EXIT.ok);
      } catch (e) {
        reportFatal(e);
      }
    });
}
