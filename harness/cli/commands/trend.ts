import type { Command } from "commander";
import { z } from "zod";
import { DEFAULT_TREND_OPTIONS, detectableSummary, type MetricTrend, type TrendResult } from "../../baseline/trend.ts";
import { trend, TrendOptionsSchema } from "../../api/baseline.ts";
import { EXIT } from "../exit.ts";
import { jsonText } from "../printing.ts";
import type { CommandContext } from "../context.ts";
import { corpusOption, CORPUS_HELP, numberOption, parseOptions, wholeText } from "../options.ts";

/** `--metrics a,b`: the metrics to chart, at least one. */
export const metricList = z
  .string()
  .min(1)
  .transform((s) =>
    s
      .split(",")
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(TrendOptionsSchema.shape.metrics.unwrap());

const { shape } = TrendOptionsSchema;
const OptionsSchema = TrendOptionsSchema.omit({ runs: true }).extend({
  referenceRuns: wholeText(shape.referenceRuns),
  window: wholeText(shape.window),
  alpha: numberOption(shape.alpha),
  corpus: corpusOption,
  metrics: metricList.optional(),
  json: z.boolean().default(false),
  all: z.boolean().default(false),
  failOnAlert: z.boolean().default(false),
});

const f = (x: number | null | undefined) => (x === null || x === undefined ? "n/a" : Number(x.toPrecision(3)).toString());

/** One line for an alarming metric: what, its family, since when, how far, by which charts. */
function alarmLine(m: MetricTrend, runs: readonly string[]): string {
  const e = m.episode!;
  const ref = m.reference;
  const at = m.points[e.first_alert]!;
  const tested = at.shift ?? at.sustained;
  // A rate judged by its counts is described by them; otherwise by the test's size and the distance in reference SDs.
  const far =
    tested?.test === "exact" && ref.events !== null
      ? `${f(e.last_value)} vs reference ${f(ref.mean)} (${ref.events} events in ${ref.units} units over ${ref.n} runs; exact count test)`
      : `${f(e.last_value)} vs reference ${f(ref.mean)}${ref.sd !== null ? ` ± ${f(ref.sd)} SD` : ""} (${e.distance_sd !== null ? `${e.distance_sd >= 0 ? "+" : ""}${f(e.distance_sd)} reference SD; ` : ""}${tested ? `z ${f(tested.z)}, ${tested.test} test; ` : ""}${ref.n} runs)`;
  const last = m.points.at(-1)!;
  const unreliable =
    e.charts.includes("trailing") && !(m.points.find((p) => p.trailing)?.trailing?.reliable ?? false) ? " (trailing window below 20 runs: unreliable)" : "";
  return `ALERT ${m.metric} [${m.family}] (worse ${m.worse}): since run ${runs[e.since]}, first alarm run ${runs[e.first_alert]}; ${far}; charts ${e.charts.join(", ")}${unreliable}${last.alerts.length ? "; alarming on the last run" : "; not on the last run"}`;
}

export function formatTrend(t: TrendResult, all = false): string {
  const lines = [
    `${t.runs.length} runs, ${t.metrics.length} metrics (${t.families.headline.length} headline, ${t.families.exploratory.length} exploratory); reference: ${t.reference.description}`,
    `charts: ${t.caveat}`,
  ];
  const alarming = t.metrics.filter((m) => m.episode !== null).sort((a, b) => (a.family === b.family ? 0 : a.family === "headline" ? -1 : 1));
  for (const m of alarming) lines.push(alarmLine(m, t.runs));
  const untested = t.metrics.filter((m) => m.points.every((p) => p.shift === null));
  lines.push(
    `${alarming.length} metric(s) alarming (${alarming.filter((m) => m.family === "headline").length} headline), ${t.metrics.length - alarming.length - untested.length} in control, ${untested.length} not tested${untested.length ? ` (${untested.map((m) => m.metric).join(", ")})` : ""}`,
  );
  const caught = detectableSummary(t);
  if (caught) lines.push(caught.note, ...caught.lines.map((l) => `  ${l.metric} ${l.text}`), ...(caught.hint ? [caught.hint] : []));
  if (all) {
    for (const m of t.metrics) {
      const last = m.points.at(-1);
      lines.push(
        `  ${m.metric} [${m.family}]: ${m.points.map((p) => f(p.value)).join(" ")}; reference ${f(m.reference.mean)}; last z ${f(last?.shift?.z)}${m.note ? ` — ${m.note}` : ""}`,
      );
    }
  }
  lines.push(`alerts: ${t.alerts.length}`);
  return `${lines.join("\n")}\n`;
}

export function register(program: Command, { host, action, warn }: CommandContext): void {
  program
    .command("trend")
    .description(
      "Drift over a history of runs (oldest first): each run, and the mean of the last few, against a fixed in-control reference, rates by their counts, other metrics paired over items; Holm within the gate's headline metrics and within the exploratory rest",
    )
    .argument("<runs...>", "run directories or baseline files, oldest first")
    .option("--baseline <file>", "the in-control reference: a (multi-run) baseline; without one, the first --reference-runs runs are the reference")
    .option(
      "--reference-runs <k>",
      "without --baseline: the first k runs are the fixed reference, not judged (pre-register k)",
      String(DEFAULT_TREND_OPTIONS.referenceRuns),
    )
    .option("--policy <file>", "gate policy whose metrics are the headline family (default: the shipped gate.yaml)")
    .option("--window <n>", "trailing window W (runs)", String(DEFAULT_TREND_OPTIONS.window))
    .option("--alpha <p>", "false alarms per run allowed in each chart, within each family", String(DEFAULT_TREND_OPTIONS.alpha))
    .option("--metrics <list>", "chart only these metrics, comma-separated (an unknown name is an error)")
    .option("--all", "print every metric's series, alarming or not")
    .option("--json", "print the trend as JSON")
    .option("--fail-on-alert", "exit 1 when any chart alerts on the last run")
    .option("--corpus <dir>", `corpus the runs were made on (${CORPUS_HELP})`)
    .action(
      action((paths: string[], raw: unknown) => {
        const { json, all, failOnAlert, ...options } = parseOptions(OptionsSchema, raw);
        const t = trend({ ...options, runs: paths }, { warn });
        host.stdout.write(json ? jsonText(t) : formatTrend(t, all));
        const lastIndex = paths.length - 1;
        return failOnAlert && t.alerts.some((a) => a.index === lastIndex) ? EXIT.blocked : EXIT.ok;
      }),
    );
}
