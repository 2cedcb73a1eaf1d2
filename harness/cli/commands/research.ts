import type { Command } from "commander";
import { resolve } from "node:path";
import { z } from "zod";
import { InputError } from "../../../src/formats/load.ts";
import { readSnapshot } from "../../baseline/io.ts";
import { loadResearchRuns, writeResearch } from "../../research/load.ts";
import { research, type Research } from "../../research/model.ts";
import { DEFAULT_TREND_OPTIONS } from "../../baseline/trend.ts";
import { metricList } from "./trend.ts";
import { headlineOf } from "../../api/baseline.ts";
import { PACKAGED_POLICY } from "../../package.ts";
import { EXIT } from "../exit.ts";
import type { CommandContext } from "../context.ts";
import { CORPUS_HELP, corpusOption, intOption, parseOptions } from "../options.ts";
import { MAX_REPS } from "../../config.ts";

const OptionsSchema = z.strictObject({
  out: z.string().min(1),
  baseline: z.string().min(1).optional(),
  referenceRuns: intOption(2).default(DEFAULT_TREND_OPTIONS.referenceRuns),
  policy: z.string().min(1).default(PACKAGED_POLICY),
  metrics: metricList.optional(),
  a: z.string().min(1).optional(),
  b: z.string().min(1).optional(),
  window: intOption(2).default(DEFAULT_TREND_OPTIONS.window),
  reps: intOption(100, MAX_REPS).default(2000),
  seed: intOption().default(0),
  corpus: corpusOption,
});

const f = (x: number | null) => (x === null ? "n/a" : Number(x.toPrecision(3)).toString());
/** A latency with its unit, or n/a alone (a group with no trial of that status has none). */
const ms = (x: number | null) => (x === null ? "n/a" : `${f(x)} ms`);

/** One line per drift alarm: the metric, its family, the run, the charts, and how big. */
function alarmLines(r: Research): string[] {
  return r.alarms.map(
    (a) =>
      `  ${a.family === "headline" ? "ALARM" : "alarm"} ${a.metric} [${a.family}] on ${r.runs[a.run]!.label}: ${f(a.value)} vs reference ${f(a.reference_mean)}${a.delta !== null ? ` (Δ ${f(a.delta)}` : " ("}${a.z !== null ? `${a.delta !== null ? ", " : ""}z ${f(a.z)}` : ""}); ${a.charts.join(", ")}`,
  );
}

/** What the charts could catch of each headline rate, and without a baseline what narrows it. */
function detectableLines(r: Research): string[] {
  const d = r.detectable;
  return d ? [d.note, ...d.lines.map((l) => `  ${l.metric} ${l.text}`), ...(d.hint ? [d.hint] : [])] : [];
}

/** The engine's group figures of each imported run over its decided trials, as the predecessor's own traces report them. */
function importedLines(r: Research): string[] {
  const e = r.operations.engine;
  return r.runs.flatMap((run, i) =>
    run.suites.includes("imported")
      ? [
          `  ${run.label}: latency p50 approved ${ms(e.latency_ms_p50.approved[i]!)}, escalated ${ms(e.latency_ms_p50.escalated[i]!)}; blockers per goal gate ${f(e.blockers_per_goal.gate[i]!.value)}, critic ${f(e.blockers_per_goal.critic[i]!.value)}; escalations per 100 goals ${f(e.escalations_per_100_goals[i]!.value)}; critic calls per goal ${f(e.critic_calls_per_goal[i]!.value)}`,
        ]
      : [],
  );
}

export function register(program: Command, { host, action, warn }: CommandContext): void {
  program
    .command("research")
    .description(
      "Research report across runs: drift alarms first (each run against a fixed in-control reference, Holm within the gate's headline metrics and within the rest), metrics over runs, the critic's drift (downgrades per family, evidence status, advisory blockers), confusion per run, a model-swap comparison, cost and latency; HTML, Markdown and JSON",
    )
    .argument("<runs...>", "run directories, or folders of runs (an import's --out); ordered by start time")
    .requiredOption("--out <dir>", "folder for research.html, research.md and research.json")
    .option("--baseline <file>", "the fixed drift reference: a published (multi-run) baseline; without one, the first --reference-runs runs are the reference")
    .option(
      "--reference-runs <k>",
      "without --baseline: the first k runs are the fixed reference, not judged (pre-register k)",
      String(DEFAULT_TREND_OPTIONS.referenceRuns),
    )
    .option("--policy <file>", "gate policy whose metrics are the headline family (default: the shipped gate.yaml)")
    .option("--metrics <list>", "chart only these metrics, comma-separated (an unknown name is an error)")
    .option("--a <run>", "model swap: run A, the candidate (a run's name or directory; default the last run)")
    .option("--b <run>", "model swap: run B, the reference (default the first run)")
    .option("--window <n>", "trailing window W of the drift monitor (runs)", String(DEFAULT_TREND_OPTIONS.window))
    .option("--reps <n>", "permutation re-splits of the model-swap test (at most 1000000)", "2000")
    .option("--seed <n>", "seed of the permutation test", "0")
    .option("--corpus <dir>", `corpus the runs were made on (imported runs carry their own goals; ${CORPUS_HELP})`)
    .action(
      action((paths: string[], raw: unknown) => {
        const options = parseOptions(OptionsSchema, raw);
        const runs = loadResearchRuns(paths, options.corpus, warn);
        const pick = (flag: "--a" | "--b", value: string | undefined, fallback: number) => {
          if (value === undefined) return runs[fallback]!.label;
          const found = runs.find((r) => r.label === value || r.run.dir === resolve(value));
          if (!found) throw new InputError("command line", flag, `no run named "${value}" (runs: ${runs.map((r) => r.label).join(", ")})`);
          return found.label;
        };
        const swap = runs.length < 2 && options.a === undefined ? null : { a: pick("--a", options.a, runs.length - 1), b: pick("--b", options.b, 0) };
        const r = research(runs, {
          baseline: options.baseline ? readSnapshot(options.baseline) : null,
          referenceRuns: options.referenceRuns,
          headline: headlineOf(options.policy),
          ...(options.metrics ? { metrics: options.metrics } : {}),
          window: options.window,
          swap,
          reps: options.reps,
          seed: options.seed,
        });
        const paths_ = writeResearch(options.out, r);
        const headline = r.alarms.filter((a) => a.family === "headline").length;
        const imported = importedLines(r);
        host.stdout.write(
          `${runs.length} runs, ${r.prompts.length} critic prompt variant(s); ${r.alarms.length} drift alarm(s) (${headline} headline)${r.alarms.length ? ":" : ""}\n` +
            [...alarmLines(r), ...detectableLines(r)].map((l) => `${l}\n`).join("") +
            `reference: ${r.reference}\n` +
            (imported.length
              ? `imported runs (the engine's group figures over its decided trials, approved or escalated as a trace records them):\n${imported.map((l) => `${l}\n`).join("")}`
              : "") +
            r.prompts
              .map(
                (p) =>
                  `  critic prompt ${p.critic_prompt?.slice(0, 8) ?? "not recorded"}: ${p.runs.length} run(s), ${p.audits} audits, advisory blockers per audit ${p.advisory_blockers_per_audit === null ? "n/a" : Number(p.advisory_blockers_per_audit.toPrecision(3))}\n`,
              )
              .join("") +
            `wrote:\n${paths_.map((p) => `  ${p}\n`).join("")}`,
        );
        return EXIT.ok;
      }),
    );
}
