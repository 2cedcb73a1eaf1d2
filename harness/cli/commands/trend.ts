import type { Command } from "commander";
import { z } from "zod";
import { readComparable, readSnapshot } from "../../baseline/io.ts";
import { DEFAULT_TREND_OPTIONS, trend, type MetricTrend, type TrendResult } from "../../baseline/trend.ts";
import { EXIT } from "../exit.ts";
import type { CommandContext } from "./index.ts";
import { intOption, numberOption, parseOptions } from "../options.ts";

const OptionsSchema = z.strictObject({
  baseline: z.string().min(1).optional(),
  window: intOption(2).default(DEFAULT_TREND_OPTIONS.window),
  alpha: numberOption(z.number().gt(0).lt(0.5)).default(DEFAULT_TREND_OPTIONS.alpha),
  metrics: z
    .string()
    .min(1)
    .transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean))
    .pipe(z.array(z.string()).min(1, "name at least one metric"))
    .optional(),
  json: z.boolean().default(false),
  all: z.boolean().default(false),
  failOnAlert: z.boolean().default(false),
  corpus: z.string().min(1).default("corpus"),
});

const f = (x: number | null | undefined) => (x === null || x === undefined ? "n/a" : Number(x.toPrecision(3)).toString());

/** One line for an alarming metric: what, since when, how far, by which charts. */
function alarmLine(m: MetricTrend, runs: readonly string[]): string {
  const e = m.episode!;
  const ref = e.reference;
  // A rate judged by its counts is described by them; otherwise by the distance in reference SDs.
  const counted = m.points[e.first_alert]!.test === "exact" && ref.events !== null;
  const far = counted
    ? `${f(e.last_value)} vs reference ${f(ref.mean)} (${ref.events} events in ${ref.units} units over ${ref.n} runs; exact count test)`
    : e.distance_sd !== null
      ? `${f(e.last_value)} vs reference ${f(ref.mean)} ± ${f(ref.sd)} SD (${e.distance_sd >= 0 ? "+" : ""}${f(e.distance_sd)} SD; ${ref.n} runs)`
      : `${f(e.last_value)} vs reference ${f(ref.mean)}`;
  const last = m.points.at(-1)!;
  const unreliable = e.charts.includes("trailing") && !(m.points.find((p) => p.trailing)?.trailing?.reliable ?? false) ? " (trailing window below 20 runs: unreliable)" : "";
  return `ALERT ${m.metric} (worse ${m.worse}): since run ${runs[e.since]}, first alarm run ${runs[e.first_alert]}; ${far}; charts ${e.charts.join(", ")}${unreliable}${last.alerts.length ? "; alarming on the last run" : "; not on the last run"}`;
}

export function formatTrend(t: TrendResult, all = false): string {
  const lines = [
    `${t.runs.length} runs, ${t.metrics.length} metrics; reference: ${t.reference}`,
    `charts: ${t.caveat}`,
  ];
  const alarming = t.metrics.filter((m) => m.episode !== null);
  for (const m of alarming) lines.push(alarmLine(m, t.runs));
  const uncharted = t.metrics.filter((m) => m.points.every((p) => p.test === null));
  lines.push(`${alarming.length} metric(s) alarming, ${t.metrics.length - alarming.length - uncharted.length} in control, ${uncharted.length} not charted${uncharted.length ? ` (${uncharted.map((m) => m.metric).join(", ")})` : ""}`);
  if (all) {
    for (const m of t.metrics) {
      const last = m.points.at(-1);
      lines.push(`  ${m.metric}: ${m.points.map((p) => f(p.value)).join(" ")}; last z ${f(last?.z)}, CUSUM ${f(last?.cusum)}/${f(t.cusum.h)}${m.note ? ` — ${m.note}` : ""}`);
    }
  }
  lines.push(`alerts: ${t.alerts.length}`);
  return `${lines.join("\n")}\n`;
}

export function register(program: Command, { host, action, warn }: CommandContext): void {
  program
    .command("trend")
    .description("Drift over a history of runs (oldest first): shift test, CUSUM and trailing window against an in-control reference, Holm across metrics")
    .argument("<runs...>", "run directories or baseline files, oldest first")
    .option("--baseline <file>", "in-control reference: a (multi-run) baseline; without one the charts start from the first runs")
    .option("--window <n>", "trailing window W (runs)", String(DEFAULT_TREND_OPTIONS.window))
    .option("--alpha <p>", "false alarms per run allowed in each chart family, across all metrics", String(DEFAULT_TREND_OPTIONS.alpha))
    .option("--metrics <list>", "chart only these metrics, comma-separated (fewer metrics, more power per metric; an unknown name is an error)")
    .option("--all", "print every metric's series, alarming or not")
    .option("--json", "print the trend as JSON")
    .option("--fail-on-alert", "exit 1 when any chart alerts on the last run")
    .option("--corpus <dir>", "corpus the runs were made on", "corpus")
    .action(action((paths: string[], raw: unknown) => {
      const options = parseOptions(OptionsSchema, raw);
      const runs = paths.map((p) => readComparable(p, options.corpus, warn));
      const t = trend(runs, options.baseline ? readSnapshot(options.baseline) : null, {
        window: options.window,
        alpha: options.alpha,
        ...(options.metrics ? { metrics: options.metrics } : {}),
      });
      host.stdout.write(options.json ? `${JSON.stringify(t, null, 2)}\n` : formatTrend(t, options.all));
      const lastIndex = runs.length - 1;
      return options.failOnAlert && t.alerts.some((a) => a.index === lastIndex) ? EXIT.blocked : EXIT.ok;
    }));
}
