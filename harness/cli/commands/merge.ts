import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { runIdFor } from "../../run/manifest.ts";
import { loadMergeInput, mergeRuns } from "../../run/merge.ts";
import { redactArgv } from "../../run/redact.ts";
import { duplicatesWarning, RUN_FILES } from "../../run/store.ts";
import { reportRun } from "../../assembly.ts";
import { EXIT } from "../exit.ts";
import type { CommandContext } from "../context.ts";
import { parseOptions } from "../options.ts";

const OptionsSchema = z.strictObject({ out: z.string().min(1), force: z.boolean().optional(), breakLock: z.boolean().optional() });

export function register(program: Command, { host, action, warn }: CommandContext): void {
  program
    .command("merge")
    .description("Merge shard runs (same config and corpus, every trial key exactly once) into one run")
    .argument("<dirs...>", "run directories of the shards")
    .requiredOption("--out <dir>", "run directory to write (must be empty unless --force; what a merge killed there left is removed)")
    .option("--force", "reuse a non-empty --out, removing the previous run's files")
    .option("--break-lock", "take an --out lock held by a process on another host (a merge whose pod or machine died; its host and pid are printed)")
    .action(
      action((dirs: string[], raw: unknown) => {
        const options = parseOptions(OptionsSchema, raw);
        const now = () => new Date();
        const runId = runIdFor(now(), `${randomBytes(3).toString("hex")}-merged`);
        const inputs = dirs.map(loadMergeInput);
        for (const input of inputs) if (input.duplicates.length > 0) warn(`${input.dir}: ${duplicatesWarning(input.duplicates)}`);
        const manifest = mergeRuns(inputs, options.out, {
          now,
          runId,
          command: ["fieldtest", ...redactArgv(host.argv)],
          force: options.force === true,
          breakLock: options.breakLock === true,
          notify: (line) => host.stderr.write(`fieldtest: ${line}\n`),
        });
        const out = options.out;
        const report = reportRun(out);
        const paths = [join(out, RUN_FILES.manifest), join(out, RUN_FILES.trials), ...report.paths];
        host.stdout.write(
          `merged ${dirs.length} runs: ${manifest.totals.recorded} trials, config ${manifest.config_hash.slice(0, 12)}, corpus ${manifest.corpus.hash.slice(0, 12)}\n` +
            `${report.headline.length ? `\n${report.headline.join("\n")}\n\n` : ""}wrote:\n${paths.map((p) => `  ${p}`).join("\n")}\n`,
        );
        return EXIT.ok;
      }),
    );
}
