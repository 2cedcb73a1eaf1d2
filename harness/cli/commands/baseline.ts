import { basename } from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { snapshotOfRuns, writeSnapshot } from "../../baseline/io.ts";
import { writeOutputWith } from "../../output.ts";
import { EXIT } from "../exit.ts";
import type { CommandContext } from "../context.ts";
import { CORPUS_HELP, corpusOption, parseOptions } from "../options.ts";

const PublishSchema = z.strictObject({
  out: z.string().regex(/\.json$/, "must name a .json file"),
  name: z.string().min(1).optional(),
  corpus: corpusOption,
});

export function register(program: Command, { host, action, warn }: CommandContext): void {
  const baseline = program.command("baseline").description("Published baselines");
  baseline
    .command("publish")
    .description(
      "Reduce one run, or several runs of one configuration at independent seeds, to a baseline: pooled per-item verdict counts, metrics with intervals, each metric's between-run mean and SD, decision context, corpus and gate hashes",
    )
    .argument("<dirs...>", "run directories (one configuration; several seeds give drift charts a reference with its own uncertainty)")
    .requiredOption("--out <file>", "baseline file to write, e.g. baselines/NAME.json")
    .option("--name <name>", "baseline name (default: the file name)")
    .option("--corpus <dir>", `corpus the runs were made on (${CORPUS_HELP})`)
    .action(
      action((dirs: string[], raw: unknown) => {
        const options = parseOptions(PublishSchema, raw);
        const snapshot = snapshotOfRuns(dirs, options.corpus, options.name ?? basename(options.out, ".json"), warn);
        writeOutputWith(options.out, "--out", (file) => writeSnapshot(file, snapshot));
        const seeds = snapshot.runs.map((r) => r.seed).join(", ");
        host.stdout.write(
          `wrote ${options.out}: ${snapshot.runs.length} run(s) (seeds ${seeds}), ${snapshot.items.length} items, ${snapshot.total_trials} trials, ${Object.keys(snapshot.metrics).length} metrics\n`,
        );
        return EXIT.ok;
      }),
    );
}
