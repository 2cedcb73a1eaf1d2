import type { Command } from "commander";
import { z } from "zod";
import { InputError } from "../../../src/formats/load.ts";
import { SPEND_COLUMNS, spendNote, spendRows } from "../../report/format.ts";
import { writeReport } from "../../report/write.ts";
import { formatTable } from "../../run/summary.ts";
import { EXIT } from "../exit.ts";
import type { CommandContext } from "../context.ts";
import { CORPUS_HELP, corpusOption, parseOptions } from "../options.ts";
import { PACKAGED_POLICY } from "../../package.ts";

const OptionsSchema = z.strictObject({
  corpus: corpusOption,
  baseline: z.string().min(1).optional(),
  policy: z.string().min(1).optional(),
});

export function register(program: Command, { host, action, warn }: CommandContext): void {
  program
    .command("report")
    .description(
      "Compute metrics and write summary.json, trials.csv, report.md and report.html into a run directory, and print the spend per session (from the spend journal); with --baseline they lead with the release gate's decision; warnings (a run that is only a part, or has no trial left; a corpus changed since the run) lead them and go to stderr",
    )
    .argument("<dir>", "run directory (manifest.json, trials.jsonl)")
    .option("--corpus <dir>", `corpus the run was made on (ground truth; ${CORPUS_HELP})`)
    .option("--baseline <file>", "published baseline to decide against (the verdict fieldtest gate gives)")
    .option("--policy <file>", "pre-registered gate policy, with --baseline (default: the shipped gate.yaml)")
    .action(
      action((dir: string, raw: unknown) => {
        const options = parseOptions(OptionsSchema, raw);
        if (options.policy !== undefined && options.baseline === undefined) throw new InputError("command line", "--policy", "needs --baseline FILE");
        const decision = options.baseline === undefined ? null : { baseline: options.baseline, policy: options.policy ?? PACKAGED_POLICY };
        const written = writeReport(dir, options.corpus, decision);
        // The reports lead with the same warnings: a run with nothing left to report is never silent.
        for (const w of written.warnings) warn(w);
        for (const path of written.paths) host.stdout.write(`wrote ${path}\n`);
        if (written.spend) host.stdout.write(`\nspend per session (spend journal):\n${formatTable(SPEND_COLUMNS, spendRows(written.spend))}\n`);
        host.stdout.write(`${written.spend ? "" : "\n"}${spendNote(written.spend)}\n`);
        if (written.decision) host.stdout.write(`${written.decision.verdict}\n`);
        return EXIT.ok;
      }),
    );
}
