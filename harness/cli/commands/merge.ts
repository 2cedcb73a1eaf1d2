import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { InputError } from "../../../src/formats/load.ts";
import { runIdFor } from "../../run/manifest.ts";
import { loadMergeInput, mergeRuns } from "../../run/merge.ts";
import { redactArgv } from "../../run/redact.ts";
import { RUN_FILES } from "../../run/store.ts";
import { reportRun } from "../../run/wiring.ts";
import { EXIT, exitWith, reportFatal } from "../exit.ts";

const OptionsSchema = z.strictObject({ out: z.string().min(1), force: z.boolean().optional() });

export function register(program: Command): void {
  program
    .command("merge")
    .description("Merge shard runs (same config and corpus, every trial key exactly once) into one run")
    .argument("<dirs...>", "run directories of the shards")
    .requiredOption("--out <dir>", "run directory to write (must be empty unless --force)")
    .option("--force", "reuse a non-empty --out, removing the previous run's files")
    .action((dirs: string[], raw: unknown) => {
      try {
        const parsed = OptionsSchema.safeParse(raw);
        if (!parsed.success) throw new InputError("command line", `--${String(parsed.error.issues[0]!.path[0] ?? "")}`, parsed.error.issues[0]!.message);
        const now = () => new Date();
        const runId = runIdFor(now(), `${randomBytes(3).toString("hex")}-merged`);
        const manifest = mergeRuns(dirs.map(loadMergeInput), parsed.data.out, {
          now,
          runId,
          command: ["fieldtest", ...redactArgv(process.argv.slice(2))],
          force: parsed.data.force === true,
        });
        const out = parsed.data.out;
        const report = reportRun(out);
        const paths = [join(out, RUN_FILES.manifest), join(out, RUN_FILES.trials), ...report.paths];
        process.stdout.write(
          `merged ${dirs.length} runs: ${manifest.totals.recorded} trials, config ${manifest.config_hash.slice(0, 12)}, corpus ${manifest.corpus.hash.slice(0, 12)}\n` +
            `${report.headline.length ? `\n${report.headline.join("\n")}\n\n` : ""}wrote:\n${paths.map((p) => `  ${p}`).join("\n")}\n`,
        );
        exitWith(EXIT.ok);
      } catch (e) {
        reportFatal(e);
      }
    });
}
