import { mkdirSync } from "node:fs";
import { basename, dirname } from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { snapshotOfRun, writeSnapshot } from "../../baseline/io.ts";
import { EXIT, guarded } from "../exit.ts";
import { parseOptions } from "../options.ts";

const PublishSchema = z.strictObject({
  out: z.string().regex(/\.json$/, "must name a .json file"),
  name: z.string().min(1).optional(),
  corpus: z.string().min(1).default("corpus"),
});

export function register(program: Command): void {
  const baseline = program.command("baseline").description("Published baselines");
  baseline
    .command("publish")
    .description("Reduce a run to a baseline: per-item verdict distributions, metrics with intervals, decision context, corpus and gate hashes")
    .argument("<dir>", "run directory")
    .requiredOption("--out <file>", "baseline file to write, e.g. baselines/NAME.json")
    .option("--name <name>", "baseline name (default: the file name)")
    .option("--corpus <dir>", "corpus the run was made on", "corpus")
    .action(guarded((dir: string, raw: unknown) => {
      const options = parseOptions(PublishSchema, raw);
      const snapshot = snapshotOfRun(dir, options.corpus, options.name ?? basename(options.out, ".json"));
      mkdirSync(dirname(options.out), { recursive: true });
      writeSnapshot(options.out, snapshot);
      process.stdout.write(`wrote ${options.out}: ${snapshot.items.length} items, ${snapshot.total_trials} trials, ${Object.keys(snapshot.metrics).length} metrics\n`);
      return EXIT.ok;
    }));
}
