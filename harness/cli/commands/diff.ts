import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { z } from "zod";
import { diffSnapshots, type DiffResult } from "../../baseline/diff.ts";
import { readSnapshot, snapshotOfRun } from "../../baseline/io.ts";
import { EXIT, guarded } from "../exit.ts";
import { parseOptions } from "../options.ts";

const OptionsSchema = z.strictObject({
  baseline: z.string().min(1),
  json: z.boolean().default(false),
  jsonOut: z.string().min(1).optional(),
  alpha: z.coerce.number().gt(0).lt(1).default(0.05),
  corpus: z.string().min(1).default("corpus"),
});

const show = (v: unknown) => (v === null || v === undefined ? "unset" : typeof v === "string" ? v : JSON.stringify(v));

/** The diff for people: compatibility first, then counts, then every unexplained delta. */
export function formatDiff(d: DiffResult): string {
  const lines: string[] = [];
  lines.push(d.compatible ? "compatible: same configuration, corpus and gates" : `incompatible parts (${d.differences.length + d.coverage.changed.length}):`);
  for (const x of d.differences) lines.push(`  ${x.part}: ${show(x.baseline)} -> ${show(x.candidate)}`);
  for (const item of d.coverage.changed) lines.push(`  item changed: ${item}`);
  const c = d.coverage;
  lines.push(`items: ${c.paired.length + c.changed.length} compared (${c.changed.length} changed), ${c.only_baseline.length} only in baseline, ${c.only_candidate.length} only in candidate`);
  if (d.trials_per_item.baseline !== d.trials_per_item.candidate) lines.push(`trials per item differ: baseline ${d.trials_per_item.baseline}, candidate ${d.trials_per_item.candidate}`);
  lines.push(`deltas: ${d.deltas.length} (${d.counts.cause} attributed to a recorded cause, ${d.counts.noise} to noise, ${d.counts.unexplained} unexplained)`);
  for (const x of d.deltas.filter((x) => x.attribution === "cause")) {
    lines.push(`  ${x.item} ${x.kind}${x.key ? ` ${x.key}` : ""}: ${show(x.baseline)} -> ${show(x.candidate)} [${x.causes.map((k) => k.part).join(", ")}]`);
  }
  if (d.unexplained.length) lines.push("unexplained:");
  for (const x of d.unexplained) {
    lines.push(`  ${x.item} ${x.kind}${x.key ? ` ${x.key}` : ""}: ${show(x.baseline)} -> ${show(x.candidate)} (baseline ${JSON.stringify(x.baseline_counts)}, candidate ${JSON.stringify(x.candidate_counts)}, p ${x.p_value?.toPrecision(3) ?? "n/a"})`);
  }
  return `${lines.join("\n")}\n`;
}

export function register(program: Command): void {
  program
    .command("diff")
    .description("Diff a run against a baseline with every delta attributed: 0 none unexplained, 1 otherwise")
    .argument("<dir>", "run directory")
    .requiredOption("--baseline <file>", "published baseline (baselines/NAME.json)")
    .option("--json", "print the diff as JSON (with an `unexplained` list)")
    .option("--json-out <file>", "also write the diff as JSON to FILE (one diff for both forms)")
    .option("--alpha <p>", "level of the within-item noise test", "0.05")
    .option("--corpus <dir>", "corpus the run was made on", "corpus")
    .action(guarded((dir: string, raw: unknown) => {
      const options = parseOptions(OptionsSchema, raw);
      const d = diffSnapshots(readSnapshot(options.baseline), snapshotOfRun(dir, options.corpus), options.alpha);
      const json = `${JSON.stringify(d, null, 2)}\n`;
      if (options.jsonOut) writeFileSync(options.jsonOut, json);
      process.stdout.write(options.json ? json : formatDiff(d));
      return d.unexplained.length === 0 ? EXIT.ok : EXIT.blocked;
    }));
}
