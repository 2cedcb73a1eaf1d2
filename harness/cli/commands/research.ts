import type { Command } from "commander";
import { resolve } from "node:path";
import { z } from "zod";
import { InputError } from "../../../src/formats/load.ts";
import { readSnapshot } from "../../baseline/io.ts";
import { loadResearchRuns, writeResearch } from "../../research/load.ts";
import { research } from "../../research/model.ts";
import { EXIT } from "../exit.ts";
import type { CommandContext } from "./index.ts";
import { intOption, MAX_REPS, parseOptions } from "../options.ts";

const OptionsSchema = z.strictObject({
  out: z.string().min(1),
  baseline: z.string().min(1).optional(),
  a: z.string().min(1).optional(),
  b: z.string().min(1).optional(),
  window: intOption(2).default(5),
  reps: intOption(100, MAX_REPS).default(2000),
  seed: intOption().default(0),
  corpus: z.string().min(1).default("corpus"),
});

export function register(program: Command, { host, action, warn }: CommandContext): void {
  program
    .command("research")
    .description("Research report across runs: metrics over runs with drift alarms, the critic's drift (downgrades per family, evidence status, advisory blockers), confusion per run, a model-swap comparison, cost and latency; HTML, Markdown and JSON")
    .argument("<runs...>", "run directories, or folders of runs (an import's --out); ordered by start time")
    .requiredOption("--out <dir>", "folder for research.html, research.md and research.json")
    .option("--baseline <file>", "fixed drift reference (default: the first run)")
    .option("--a <run>", "model swap: run A, the candidate (a run's name or directory; default the last run)")
    .option("--b <run>", "model swap: run B, the reference (default the first run)")
    .option("--window <n>", "trailing window W of the drift monitor (runs)", "5")
    .option("--reps <n>", "permutation re-splits of the model-swap test (at most 1000000)", "2000")
    .option("--seed <n>", "seed of the permutation test", "0")
    .option("--corpus <dir>", "corpus the runs were made on (imported runs carry their own goals)", "corpus")
    .action(action((paths: string[], raw: unknown) => {
      const options = parseOptions(OptionsSchema, raw);
      const runs = loadResearchRuns(paths, options.corpus, warn);
      const pick = (flag: "--a" | "--b", value: string | undefined, fallback: number) => {
        if (value === undefined) return runs[fallback]!.label;
        const found = runs.find((r) => r.label === value || r.run.dir === resolve(value));
        if (!found) throw new InputError("command line", flag, `no run named "${value}" (runs: ${runs.map((r) => r.label).join(", ")})`);
        return found.label;
      };
      const swap = runs.length < 2 && options.a === undefined ? null : { a: pick("--a", options.a, runs.length - 1), b: pick("--b", options.b, 0) };
      const r = research(runs, { baseline: options.baseline ? readSnapshot(options.baseline) : null, window: options.window, swap, reps: options.reps, seed: options.seed });
      const paths_ = writeResearch(options.out, r);
      const alarms = r.metrics.flatMap((m) => m.points.flatMap((p, i) => (p.alerts.length ? [`${m.metric} on ${runs[i]!.label}`] : [])));
      host.stdout.write(
        `${runs.length} runs, ${r.prompts.length} critic prompt variant(s); ${alarms.length} drift alarm(s)${alarms.length ? `: ${alarms.slice(0, 5).join("; ")}${alarms.length > 5 ? "; ..." : ""}` : ""}\n` +
          r.prompts.map((p) => `  critic prompt ${p.critic_prompt?.slice(0, 8) ?? "not recorded"}: ${p.runs.length} run(s), ${p.audits} audits, advisory blockers per audit ${p.advisory_blockers_per_audit === null ? "n/a" : Number(p.advisory_blockers_per_audit.toPrecision(3))}\n`).join("") +
          `wrote:\n${paths_.map((p) => `  ${p}\n`).join("")}`,
      );
      return EXIT.ok;
    }));
}
