import type { Command } from "commander";
import { z } from "zod";
import { isCause, type Coverage, type Difference } from "../../baseline/compat.ts";
import type { Delta, DiffResult } from "../../baseline/diff.ts";
import { diff, DiffOptionsSchema } from "../../api/baseline.ts";
import { writeOutputFile } from "../../output.ts";
import { jsonText } from "../printing.ts";
import type { CommandContext } from "../context.ts";
import { corpusOption, CORPUS_HELP, numberOption, parseOptions } from "../options.ts";

const OptionsSchema = DiffOptionsSchema.omit({ run: true }).extend({
  alpha: numberOption(DiffOptionsSchema.shape.alpha),
  corpus: corpusOption,
  json: z.boolean().default(false),
  jsonOut: z.string().min(1).optional(),
  all: z.boolean().default(false),
});

const show = (v: unknown) => (v === null || v === undefined ? "unset" : typeof v === "string" ? v : JSON.stringify(v));
const p3 = (x: number) => (x < 1e-3 ? x.toExponential(1) : Number(x.toPrecision(3)).toString());

/** What the two sides are called in the text: `diff` says baseline and candidate, `compare` B and A. */
interface SideLabels {
  baseline: string;
  candidate: string;
}

/** Every recorded configuration difference, one line each (causes and not), then the item coverage. */
export function formatDifferences(
  differences: readonly Difference[],
  coverage: Coverage,
  labels: SideLabels = { baseline: "baseline", candidate: "candidate" },
): string[] {
  const lines = [
    differences.length === 0 && coverage.changed.length === 0
      ? "same configuration, corpus and gates"
      : `configuration differences (${differences.length + coverage.changed.length}):`,
  ];
  for (const x of differences)
    lines.push(
      `  ${x.part}: ${show(x.baseline)} -> ${show(x.candidate)}${isCause(x) ? "" : " (not a cause: the same behaviour, sampled again or more often)"}`,
    );
  for (const item of coverage.changed) lines.push(`  item changed: ${item}`);
  lines.push(
    `items: ${coverage.paired.length + coverage.changed.length} compared (${coverage.changed.length} whose content changed), ${coverage.only_baseline.length} only in ${labels.baseline}, ${coverage.only_candidate.length} only in ${labels.candidate}`,
  );
  return lines;
}

const counts = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");

function deltaLine(x: Delta): string {
  const what = `${x.item} ${x.kind}${x.key ? ` ${x.key}` : ""}: ${show(x.baseline)} -> ${show(x.candidate)}`;
  const tested = `baseline ${x.baseline_trials} trials: ${counts(x.baseline_counts)}; candidate ${x.candidate_trials}: ${counts(x.candidate_counts)}; p ${p3(x.p_value)}, Holm ${p3(x.p_holm)}`;
  return `  ${what} (${tested})${x.attribution === "cause" ? ` [${x.causes.map((k) => k.part).join(", ")}]` : ""}`;
}

/** The diff for people: configuration differences first, the test and its power, then the deltas beyond noise. */
export function formatDiff(d: DiffResult, all = false): string {
  const lines = formatDifferences(d.differences, d.coverage);
  if (d.trials_per_item.baseline !== d.trials_per_item.candidate)
    lines.push(`trials per item: baseline ${d.trials_per_item.baseline}, candidate ${d.trials_per_item.candidate}`);
  const power =
    d.power.smallest_p === null
      ? ""
      : d.power.smallest_p > Math.max(d.power.holm_first_step, d.power.key_holm_first_step)
        ? `; with these trial counts the smallest p an item can reach is ${p3(d.power.smallest_p)}, above Holm's first step in both families (${p3(d.power.holm_first_step)}, keys ${p3(d.power.key_holm_first_step)}): no single delta can be beyond noise, and a regression shows only in the metrics (fieldtest gate)`
        : `; the smallest p an item can reach is ${p3(d.power.smallest_p)} (Holm's first step ${p3(d.power.holm_first_step)}, keys ${p3(d.power.key_holm_first_step)})`;
  lines.push(
    `per-item test: Fisher exact, two-sided, Holm at α ${d.alpha} over the ${d.tests.verdict} items' verdict tests and, apart, the ${d.tests.blocker_key} blocker keys' tests${power}`,
  );
  lines.push(
    `deltas: ${d.deltas.length} (${d.counts.noise} within noise, ${d.counts.cause} beyond noise with a recorded cause, ${d.counts.unexplained} beyond noise unexplained)`,
  );
  const causes = d.deltas.filter((x) => x.attribution === "cause");
  if (causes.length) lines.push("cause:", ...causes.map(deltaLine));
  if (d.unexplained.length) lines.push("unexplained:", ...d.unexplained.map(deltaLine));
  const noise = d.deltas.filter((x) => x.attribution === "noise");
  if (all && noise.length) lines.push("noise:", ...noise.map(deltaLine));
  else if (noise.length) lines.push(`(${noise.length} changed item(s) within noise: --all lists them)`);
  return `${lines.join("\n")}\n`;
}

export function register(program: Command, { host, action, warn }: CommandContext): void {
  program
    .command("diff")
    .description("Diff a run against a baseline with every delta attributed (noise, cause, unexplained): 0 none unexplained, 1 otherwise")
    .argument("<dir>", "run directory")
    .requiredOption("--baseline <file>", "published baseline (baselines/NAME.json)")
    .option("--json", "print the diff as JSON (with an `unexplained` list)")
    .option("--json-out <file>", "also write the diff as JSON to FILE (one diff for both forms)")
    .option("--all", "also list the changed items within noise")
    .option("--alpha <p>", "family-wise level of the per-item tests (Holm over items)", "0.05")
    .option("--corpus <dir>", `corpus the run was made on (${CORPUS_HELP})`)
    .action(
      action((dir: string, raw: unknown) => {
        const { json: asJson, jsonOut, all, ...options } = parseOptions(OptionsSchema, raw);
        const { exitCode, ...d } = diff({ ...options, run: dir }, { warn });
        const json = jsonText(d);
        if (jsonOut) writeOutputFile(jsonOut, json, "--json-out");
        host.stdout.write(asJson ? json : formatDiff(d, all));
        return exitCode;
      }),
    );
}
