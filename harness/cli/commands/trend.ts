import type { Command } from "commander";
import { z } from "zod";
import { readComparable, readSnapshot } from "../../baseline/io.ts";
import { trend, type TrendResult } from "../../baseline/trend.ts";
import { EXIT, guarded } from "../exit.ts";
import { parseOptions } from "../options.ts";

const OptionsSchema = z.strictObject({
  baseline: z.string().min(1).optional(),
  window: z.coerce.number().int().min(2).default(5),
  json: z.boolean().default(false),
  failOnAlert: z.boolean().default(false),
  corpus: z.string().min(1).default("corpus"),
});

const f = (x: number | null) => (x === null ? "n/a" : Number(x.toPrecision(3)).toString());

export function formatTrend(t: TrendResult, runs: number): string {
  const lines = [`${runs} runs, ${t.metrics.length} metrics; reference: ${t.metrics[0]?.reference.source ?? "none"}`];
  for (const m of t.metrics) {
    const last = m.points.at(-1);
    const flags = [...new Set(m.points.flatMap((p) => p.alerts))];
    lines.push(
      `${flags.length ? "ALERT" : "     "} ${m.metric}: ${m.points.map((p) => f(p.value)).join(" ")} (μ0 ${f(m.reference.mu0)}, σ0 ${f(m.reference.sigma0)}; last EWMA ${f(last?.ewma ?? null)}/${f(last?.ewma_limit ?? null)}, CUSUM ${f(last?.cusum ?? null)}/${f(last?.cusum_limit ?? null)})${flags.length ? ` [${flags.join(", ")}]` : ""}${m.note ? ` — ${m.note}` : ""}`,
    );
  }
  lines.push(`alerts: ${t.alerts.length}`);
  lines.push(t.caveat);
  return `${lines.join("\n")}\n`;
}

export function register(program: Command): void {
  program
    .command("trend")
    .description("Drift over a history of runs (oldest first): EWMA and CUSUM against the baseline, trailing-window T as a monitor")
    .argument("<runs...>", "run directories or baseline files, oldest first")
    .option("--baseline <file>", "fixed reference (default: the first run)")
    .option("--window <n>", "trailing window W (runs)", "5")
    .option("--json", "print the trend as JSON")
    .option("--fail-on-alert", "exit 1 when any chart alerts on the last run")
    .option("--corpus <dir>", "corpus the runs were made on", "corpus")
    .action(guarded((paths: string[], raw: unknown) => {
      const options = parseOptions(OptionsSchema, raw);
      const runs = paths.map((p) => readComparable(p, options.corpus));
      const t = trend(runs, options.baseline ? readSnapshot(options.baseline) : null, options.window);
      process.stdout.write(options.json ? `${JSON.stringify(t, null, 2)}\n` : formatTrend(t, runs.length));
      const lastRun = runs.at(-1);
      const alertOnLast = t.alerts.some((a) => a.run === (lastRun?.run_id ?? lastRun?.name));
      return options.failOnAlert && alertOnLast ? EXIT.blocked : EXIT.ok;
    }));
}
