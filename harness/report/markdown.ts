import type { ItemSummary } from "../../src/metrics/items.ts";
import { gateOutcome, type Decision } from "./decision.ts";
import type { MetricValue } from "../../src/metrics/types.ts";
import { directionMark, fmt, fmtMetric, forestDelta, mdText, modelLabel, runOrigin, SPEND_COLUMNS, spendNote, spendRows, table, verdictText } from "./format.ts";
import { metricInfo, orderedMetricNames } from "../../src/metrics/catalogue.ts";
import { triage, type ItemDetail } from "./triage.ts";
import { simProfileOf, type LoadedRun } from "../run/load.ts";
import { suitesMarkdown } from "./suites.ts";
import { expectationMeaning } from "./overview.ts";

function metricRows(metrics: Record<string, MetricValue>, names: string[]): string[][] {
  return names.map((n) => [`\`${n}\``, fmtMetric(metrics[n]!), directionMark(metricInfo(n).direction), String(metrics[n]!.n_items), String(metrics[n]!.n_trials)]);
}

/** The gate's verdict with every check that did not pass, and the forest plot as a table. */
function decisionLines(d: Decision | null): string[] {
  if (d === null) return ["## Decision", "", "No baseline given: `fieldtest report DIR --baseline FILE [--policy FILE]` runs the release gate.", ""];
  const open = d.result.checks.filter((c) => c.outcome !== "pass");
  return [
    "## Decision",
    "",
    `**${d.verdict}** (exit ${d.result.exit}) against baseline ${mdText(d.baseline.name)} with policy ${mdText(d.policy.file)}; ${d.result.checks.length - open.length} of ${d.result.checks.length} checks passed.`,
    "",
    ...open.map((c) => `- ${c.outcome} \`${c.name}\`: ${c.message}`),
    ...(open.length ? [""] : []),
    table(
      ["metric", "direction", "baseline", "candidate", "Δ [95% interval]", "margin", "gate"],
      d.forest.map((r) => [
        `\`${r.metric}\``,
        directionMark(r.direction),
        fmt(r.baseline),
        fmt(r.candidate),
        forestDelta(r),
        r.gate ? fmt(r.gate.margin) : "–",
        gateOutcome(r) ?? "not gated",
      ]),
    ),
    "",
  ];
}

/** report.md: the run, its metrics with intervals, the failing expectations and the unstable items. */
export function renderMarkdown(run: LoadedRun, items: ItemSummary[], decision: Decision | null = null, details: readonly ItemDetail[] = triage(run)): string {
  const { manifest: m, summary } = run;
  const failing = details
    .map((d) => d.row)
    .filter((r) => r.expectation === "fail");
  const sim = simProfileOf(run);
  const unstable = items.filter((i) => i.unanimous === false);
  const judged = summary.expectations.goals.n_items_judged + summary.expectations.fixtures.n_items_judged;
  return [
    `# fieldtest report: ${mdText(m.run_id)}`,
    "",
    ...(sim ? [`**Simulated run** (sim profile ${mdText(sim.name)}): its numbers describe the simulator, not a model.`, ""] : []),
    `- state: ${m.state}; started ${mdText(m.started_at)}; finished ${mdText(m.finished_at ?? "not yet")}`,
    ...(runOrigin(m) ? [`- ${mdText(runOrigin(m)!)}`] : []),
    `- planner: ${mdText(modelLabel(m.roles.planner))}; critic: ${mdText(modelLabel(m.roles.critic))}`,
    `- trials per item: ${m.plan.trials}; seed ${m.config.seed}; config hash \`${m.config_hash}\`; corpus hash \`${m.corpus.hash}\``,
    `- canary: ${m.canary === null ? "not run" : m.canary.ok ? "passed" : `FAILED (${mdText(m.canary.failures.join("; "))})`}`,
    ...run.warnings.map((w) => `- **warning:** ${mdText(w)}`),
    "",
    ...decisionLines(decision),
    "## Metrics",
    "",
    table(["metric", "value [95% interval]", "direction", "items", "trials"], metricRows(summary.metrics, orderedMetricNames(summary.metrics))),
    "",
    ...suitesMarkdown(summary.metrics),
    "## Expectations",
    "",
    judged === 0
      ? `**No item was judged against its expectation** (${run.trials.length} trial(s) recorded): nothing here says the run met them.`
      : failing.length
        ? table(
            ["item", "expected", "verdicts", "failed checks (trials)"],
            failing.map((r) => [mdText(r.key), r.expected ?? "–", verdictText(r.verdict_counts), mdText(Object.entries(r.failed_checks).map(([c, n]) => `${c} ×${n}`).join(", "))]),
          )
        : "Every judged item met its expectation.",
    "",
    ...(judged > 0 ? [mdText(expectationMeaning(run)), ""] : []),
    "## Operational",
    "",
    table(["metric", "value [95% interval]", "direction", "items", "trials"], metricRows(summary.operational, Object.keys(summary.operational).sort())),
    "",
    "## Spend",
    "",
    ...(run.spend ? [table(SPEND_COLUMNS, spendRows(run.spend)), ""] : []),
    spendNote(run.spend),
    "",
    `## Items whose trials disagree (${unstable.length} of ${items.length})`,
    "",
    unstable.length
      ? table(
          ["item", "verdicts", "Q", "modal"],
          unstable.map((i) => [mdText(`${i.suite}/${i.item_id}`), verdictText(i.verdict_counts), fmt(i.disagreement), i.modal_verdict ?? "n/a"]),
        )
      : "None: every item's counted trials agreed.",
    "",
    "Per-item trials side by side are in report.html.",
    "",
  ].join("\n");
}
