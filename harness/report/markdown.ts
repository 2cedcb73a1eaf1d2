import type { ItemSummary } from "../../src/metrics/items.ts";
import type { MetricValue } from "../../src/metrics/types.ts";
import { fmt, fmtMetric, orderedMetricNames } from "./format.ts";
import type { LoadedRun } from "./load.ts";

const cell = (s: string) => s.replace(/\|/g, "\\|");

function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`)].join("\n");
}

function metricRows(metrics: Record<string, MetricValue>, names: string[]): string[][] {
  return names.map((n) => [`\`${n}\``, fmtMetric(metrics[n]!), String(metrics[n]!.n_items), String(metrics[n]!.n_trials)]);
}

/** report.md: the run, its metrics with intervals, the failing expectations and the unstable items. */
export function renderMarkdown(run: LoadedRun, items: ItemSummary[]): string {
  const { manifest: m, summary } = run;
  const failing = [
    ...summary.expectations.goals.failing_items.map((id) => `corpus/${id}`),
    ...summary.expectations.fixtures.failing_items.map((id) => `boundary/${id}`),
  ];
  const unstable = items.filter((i) => i.unanimous === false);
  return [
    `# fieldtest report: ${m.run_id}`,
    "",
    `- state: ${m.state}; started ${m.started_at}; finished ${m.finished_at ?? "not yet"}`,
    `- planner: ${m.roles.planner.provider}/${m.roles.planner.model}; critic: ${m.roles.critic.provider}/${m.roles.critic.model}`,
    `- trials per item: ${m.plan.trials}; seed ${m.config.seed}; config hash \`${m.config_hash}\`; corpus hash \`${m.corpus.hash}\``,
    `- canary: ${m.canary === null ? "not run" : m.canary.ok ? "passed" : `FAILED (${m.canary.failures.join("; ")})`}`,
    ...run.warnings.map((w) => `- **warning:** ${w}`),
    "",
    "## Metrics",
    "",
    table(["metric", "value [95% interval]", "items", "trials"], metricRows(summary.metrics, orderedMetricNames(summary.metrics))),
    "",
    "## Expectations",
    "",
    failing.length ? `${failing.length} item(s) failed an expectation: ${failing.map((f) => `\`${f}\``).join(", ")}` : "Every judged item met its expectation.",
    "",
    "## Operational",
    "",
    table(["metric", "value [95% interval]", "items", "trials"], metricRows(summary.operational, Object.keys(summary.operational).sort())),
    "",
    `## Items whose trials disagree (${unstable.length} of ${items.length})`,
    "",
    unstable.length
      ? table(
          ["item", "verdicts", "Q", "modal"],
          unstable.map((i) => [`${i.suite}/${i.item_id}`, JSON.stringify(i.verdict_counts), fmt(i.disagreement), i.modal_verdict ?? "n/a"]),
        )
      : "None: every item's counted trials agreed.",
    "",
    "Per-item trials side by side are in report.html.",
    "",
  ].join("\n");
}
