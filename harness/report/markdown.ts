import { gateOutcome, type Decision } from "./decision.ts";
import type { MetricValue } from "../../src/metrics/types.ts";
import {
  directionMark,
  fmt,
  fmtMetric,
  forestDelta,
  mdText,
  modelLabel,
  runOrigin,
  SPEND_COLUMNS,
  spendNote,
  spendRows,
  table,
  verdictText,
} from "./format.ts";
import { metricInfo } from "../../src/metrics/catalogue.ts";
import { simProfileOf, type LoadedRun } from "../run/load.ts";
import { suitesMarkdown } from "./suites.ts";
import { renderSections, type Renderings, type ReportModel } from "./model.ts";

function metricRows(metrics: Record<string, MetricValue>, names: string[]): string[][] {
  return names.map((n) => [
    `\`${n}\``,
    fmtMetric(metrics[n]!),
    directionMark(metricInfo(n).direction),
    String(metrics[n]!.n_items),
    String(metrics[n]!.n_trials),
  ]);
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

const RENDER: Renderings<string[]> = {
  warnings: (s) => [...s.warnings.map((w) => `- **warning:** ${mdText(w)}`), ""],
  decision: (s) => decisionLines(s.decision),
  metrics: (s) => ["## Metrics", "", table(["metric", "value [95% interval]", "direction", "items", "trials"], metricRows(s.metrics, s.names)), ""],
  suites: (s) => suitesMarkdown(s.metrics),
  expectations: ({ expectations: e }) => [
    "## Expectations",
    "",
    e.judged === 0
      ? `**No item was judged against its expectation** (${e.trials} trial(s) recorded): nothing here says the run met them.`
      : e.failing.length
        ? table(
            ["item", "expected", "verdicts", "failed checks (trials)"],
            e.failing.map((r) => [
              mdText(r.key),
              r.expected ?? "–",
              verdictText(r.verdict_counts),
              mdText(
                Object.entries(r.failed_checks)
                  .map(([c, n]) => `${c} ×${n}`)
                  .join(", "),
              ),
            ]),
          )
        : "Every judged item met its expectation.",
    "",
    ...(e.judged > 0 ? [mdText(e.meaning), ""] : []),
  ],
  headline: () => null,
  operational: (s) => ["## Operational", "", table(["metric", "value [95% interval]", "direction", "items", "trials"], metricRows(s.metrics, s.names)), ""],
  charts: () => null,
  items: () => null,
  item: () => null,
  transcript: () => null,
  // The run's facts are the report's header; here its spend.
  run: (s) => ["## Spend", "", ...(s.spend ? [table(SPEND_COLUMNS, spendRows(s.spend)), ""] : []), spendNote(s.spend), ""],
  checks: () => null,
  unstable: (s) => [
    `## Items whose trials disagree (${s.unstable.length} of ${s.items})`,
    "",
    s.unstable.length
      ? table(
          ["item", "verdicts", "Q", "modal"],
          s.unstable.map((i) => [mdText(`${i.suite}/${i.item_id}`), verdictText(i.verdict_counts), fmt(i.disagreement), i.modal_verdict ?? "n/a"]),
        )
      : "None: every item's counted trials agreed.",
    "",
    "Per-item trials side by side are in report.html.",
    "",
  ],
};

function header(run: LoadedRun): string[] {
  const m = run.manifest;
  const sim = simProfileOf(run);
  return [
    `# fieldtest report: ${mdText(m.run_id)}`,
    "",
    ...(sim ? [`**Simulated run** (sim profile ${mdText(sim.name)}): its numbers describe the simulator, not a model.`, ""] : []),
    `- state: ${m.state}; started ${mdText(m.started_at)}; finished ${mdText(m.finished_at ?? "not yet")}`,
    ...(runOrigin(m) ? [`- ${mdText(runOrigin(m)!)}`] : []),
    `- planner: ${mdText(modelLabel(m.roles.planner))}; critic: ${mdText(modelLabel(m.roles.critic))}`,
    `- trials per item: ${m.plan.trials}; seed ${m.config.seed}; config hash \`${m.config_hash}\`; corpus hash \`${m.corpus.hash}\``,
    `- canary: ${m.canary === null ? "not run" : m.canary.ok ? "passed" : `FAILED (${mdText(m.canary.failures.join("; "))})`}`,
  ];
}

/** report.md: the run, then the sections of the report's model (the decision, metrics, expectations, spend, the unstable items). */
export function renderMarkdown(model: ReportModel): string {
  return [...header(model.run), ...renderSections(model.sections, RENDER).flatMap((s) => s.out)].join("\n");
}
