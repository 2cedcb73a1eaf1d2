import { EVIDENCE_STATUSES } from "../../src/formats/findings.ts";
import { TRIAL_STATUSES, type TrialRecord } from "../../src/formats/records.ts";
import type { ItemSummary } from "../../src/metrics/items.ts";
import type { MetricValue } from "../../src/metrics/types.ts";
import { criticFindings } from "../../src/metrics/trial-facts.ts";
import { fmt, fmtMetric, HEADLINE_METRICS, orderedMetricNames } from "./format.ts";
import type { LoadedRun } from "./load.ts";
import { barChart, emptyChart, esc, heatmap, histogram, stackedBars } from "./svg.ts";
import { trialBlockerKeys } from "./trials-csv.ts";

/** Ids of the charts report.html always draws (the browser test looks for one svg each). */
export const CHART_IDS = ["chart-flip", "chart-confusion", "chart-evidence", "chart-latency", "chart-cost", "chart-tokens"] as const;

const CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2733;background:#f6f7f9}
header{background:#1d2733;color:#fff;padding:18px 28px}header h1{margin:0 0 4px;font-size:20px}
header .facts{color:#c9d3de;font-size:12px}
main{padding:18px 28px;max-width:1200px}
section{background:#fff;border:1px solid #dde2e8;border-radius:6px;padding:14px 18px;margin:0 0 18px}
h2{font-size:17px;margin:0 0 10px}h3{font-size:14px;margin:14px 0 6px}
table{border-collapse:collapse;font-size:12px}th,td{border-bottom:1px solid #e6e9ee;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f2f5}td.num{text-align:right;font-variant-numeric:tabular-nums}
.warn{background:#fff4e5;border-color:#f0c27b}.bad{color:#b3261e;font-weight:600}.ok{color:#1e7b34}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:14px}
figure{margin:0;min-width:0}svg.chart{max-width:100%;height:auto;display:block}figcaption{font-size:12px;color:#56616d;margin-top:4px}
.trials td{min-width:150px;max-width:260px;word-break:break-word}
code{font-size:11px;background:#f0f2f5;padding:0 3px;border-radius:3px}
#item-filter{padding:4px 8px;width:280px;margin-bottom:10px}
details>summary{cursor:pointer}
`;

/** Hide item sections whose id does not contain the filter text. */
const SCRIPT = `
document.getElementById("item-filter").addEventListener("input", function (e) {
  var q = e.target.value.toLowerCase();
  document.querySelectorAll("[data-item]").forEach(function (el) {
    el.style.display = el.getAttribute("data-item").indexOf(q) >= 0 ? "" : "none";
  });
});
`;

const EVIDENCE_COLORS: Record<string, string> = { supported: "#4f9d69", contradicted: "#c44e52", unsupported_reference: "#e07b39", uncheckable: "#9aa3ad" };
const STATUS_COLORS: Record<string, string> = { approved: "#4f9d69", escalated: "#e07b39", error: "#c44e52" };

const anchor = (suite: string, id: string) => `item-${suite}-${id}`;

function metricRow(name: string, m: MetricValue): string {
  return `<tr><td><code>${esc(name)}</code></td><td class="num">${esc(fmtMetric(m))}</td><td class="num">${m.n_items}</td><td class="num">${m.n_trials}</td><td>${esc(m.interval)}</td></tr>`;
}

function metricTable(metrics: Record<string, MetricValue>, names: string[]): string {
  return `<table><tr><th>metric</th><th>value [95% interval]</th><th>items</th><th>trials</th><th>interval</th></tr>${names.map((n) => metricRow(n, metrics[n]!)).join("")}</table>`;
}

function figure(title: string, svg: string, caption: string): string {
  return `<figure><h3>${esc(title)}</h3>${svg}<figcaption>${esc(caption)}</figcaption></figure>`;
}

/** Critic findings of every completed audit, by normalized family × evidence status. */
function evidenceByFamily(trials: readonly TrialRecord[]): { families: string[]; counts: Map<string, Record<string, number>> } {
  const counts = new Map<string, Record<string, number>>();
  for (const t of trials) {
    for (const f of criticFindings(t)) {
      const row = counts.get(f.family) ?? {};
      row[f.evidence_status] = (row[f.evidence_status] ?? 0) + 1;
      counts.set(f.family, row);
    }
  }
  return { families: [...counts.keys()].sort(), counts };
}

function charts(run: LoadedRun, items: ItemSummary[]): string {
  const { summary, trials } = run;
  const boundary = items.filter((i) => i.suite === "boundary");
  const unstable = boundary.filter((i) => (i.disagreement ?? 0) > 0).sort((a, b) => b.disagreement! - a.disagreement! || (a.item_id < b.item_id ? -1 : 1));
  const stable = boundary.filter((i) => i.disagreement === 0).length;
  const undefinedQ = boundary.length - unstable.length - stable;
  const flip = unstable.length
    ? barChart({
        id: "chart-flip",
        bars: unstable.map((i) => ({ label: i.item_id, value: i.disagreement, title: `${i.item_id}: Q = ${fmt(i.disagreement)}; verdicts ${JSON.stringify(i.verdict_counts)}` })),
        max: 1,
      })
    : emptyChart("chart-flip", `no boundary fixture flipped (${boundary.length} fixtures)`);
  const conf = summary.family_confusion;
  const confusion = heatmap({ id: "chart-confusion", rows: [...conf.rows], cols: [...conf.columns], cells: conf.counts, rowTitle: "intended", colTitle: "observed" });
  const ev = evidenceByFamily(trials);
  const evidence = stackedBars({
    id: "chart-evidence",
    categories: ev.families,
    series: EVIDENCE_STATUSES.map((s) => ({ name: s, color: EVIDENCE_COLORS[s], values: ev.families.map((f) => ev.counts.get(f)?.[s] ?? 0) })),
  });
  const latency = histogram({
    id: "chart-latency",
    unit: "ms",
    groups: TRIAL_STATUSES.map((s) => ({ name: s, color: STATUS_COLORS[s], values: trials.filter((t) => t.status === s).map((t) => t.latency_ms) })),
  });
  const op = summary.operational;
  const roles = ["planner", "critic"];
  const cost = barChart({
    id: "chart-cost",
    bars: roles.map((r) => ({ label: r, value: op[`cost_usd.${r}`]?.value ?? null })),
    format: (v) => `$${v.toFixed(4)}`,
  });
  const withoutUsage = roles.reduce((n, r) => n + (op[`calls_without_usage.${r}`]?.value ?? 0), 0);
  const tokens = stackedBars({
    id: "chart-tokens",
    categories: roles,
    series: ["input", "output"].map((k) => ({ name: `${k} tokens`, values: roles.map((r) => op[`tokens_${k}.${r}`]?.value ?? 0) })),
  });
  return `<section><h2>Charts</h2><div class="charts">
${figure("Label flip rate per boundary fixture", flip, `Q_i, the probability that two trials of the fixture disagree on critic_verdict, for the ${unstable.length} fixtures that flipped; ${stable} more never flipped${undefinedQ ? ` and ${undefinedQ} had fewer than two counted trials` : ""}. Per-fixture values are triage signals, not claims.`)}
${figure("Family confusion (seeded defects)", confusion, "Intended family (rows) × the family the critic filed it under at the seeded task (columns), over trials × defects; shading is the share of the row.")}
${figure("Evidence status by family", evidence, "Critic findings of every completed audit, by normalized family and the deterministic evidence check's status.")}
${figure("Trial latency", latency, "Wall time per trial, stacked by status.")}
${figure("Cost by role", cost, "USD per role over the run; n/a when any call's price is unknown (never read as 0).")}
${figure("Tokens by role", tokens, `Provider-reported input and output tokens per role${withoutUsage > 0 ? `; ${withoutUsage} call(s) reported no usage and add nothing (the sim never does)` : ""}.`)}
</div></section>`;
}

function trialCell(t: TrialRecord): string {
  const last = t.rounds.at(-1);
  const findings = t.rounds.flatMap((r) => r.critic?.findings ?? []);
  const lines = [
    `<b>${esc(t.critic_verdict ?? t.status)}</b>${t.critic_verdict ? ` (${esc(t.status)})` : ""}`,
    t.escalation_reasons.length ? `reasons: ${esc(t.escalation_reasons.join(", "))}` : "",
    t.error ? `<span class="bad">error: ${esc(t.error)}</span>` : "",
    `rounds: ${t.rounds.length}; calls: ${t.calls.length}; ${fmt(t.latency_ms)} ms; cost ${t.cost_usd === null ? "n/a" : `$${t.cost_usd.toFixed(4)}`}`,
    last && last.gate_findings.length ? `gate: ${last.gate_findings.map((f) => `<code>${esc(f.code)}@${esc(f.task_id ?? "-")}</code>`).join(" ")}` : "",
    findings.length
      ? `critic: ${findings.map((f) => `<code>${esc(f.family)}/${esc(f.severity)}/${esc(f.evidence_status)}@${esc(f.task_id ?? "-")}</code>`).join(" ")}`
      : "",
    trialBlockerKeys(t).length ? `blockers: ${trialBlockerKeys(t).map((k) => `<code>${esc(k)}</code>`).join(" ")}` : "",
  ];
  return `<td>${lines.filter(Boolean).join("<br>")}</td>`;
}

function itemSection(item: ItemSummary, trials: TrialRecord[]): string {
  const id = anchor(item.suite, item.item_id);
  const head = `${item.suite}/${item.item_id}`;
  return `<section id="${esc(id)}" data-item="${esc(head.toLowerCase())}"><h3>${esc(head)}</h3>
<p>verdicts ${esc(JSON.stringify(item.verdict_counts))}; modal ${esc(item.modal_verdict ?? "n/a")}; Q ${fmt(item.disagreement)}; ${item.unanimous ? "unanimous" : "not unanimous"}</p>
<table class="trials"><tr>${trials.map((t) => `<th>trial ${t.trial}</th>`).join("")}</tr><tr>${trials.map(trialCell).join("")}</tr></table></section>`;
}

function runFacts(run: LoadedRun): string {
  const m = run.manifest;
  const role = (r: keyof typeof m.roles) => `${m.roles[r].provider}/${m.roles[r].model} (T ${m.roles[r].temperature ?? "unset"})`;
  return [
    `run ${m.run_id} · ${m.state} · ${m.started_at} → ${m.finished_at ?? "unfinished"}`,
    `planner ${role("planner")} · critic ${role("critic")} · ${m.plan.trials} trials/item · seed ${m.config.seed}`,
    `config ${m.config_hash.slice(0, 12)} · corpus ${m.corpus.hash.slice(0, 12)} · canary ${m.canary === null ? "not run" : m.canary.ok ? "passed" : "FAILED"} · git ${m.git.sha?.slice(0, 10) ?? "unknown"}${m.git.dirty ? " (dirty)" : ""}`,
  ]
    .map(esc)
    .join("<br>");
}

/** report.html: self-contained (inline CSS, SVG and a few lines of JS; no network). */
export function renderHtml(run: LoadedRun, items: ItemSummary[]): string {
  const { summary } = run;
  const names = orderedMetricNames(summary.metrics);
  const headline = names.filter((n) => (HEADLINE_METRICS as readonly string[]).includes(n));
  const byItem = new Map<string, TrialRecord[]>();
  for (const t of run.trials) byItem.set(`${t.suite}/${t.item_id}`, [...(byItem.get(`${t.suite}/${t.item_id}`) ?? []), t]);
  const failing = [
    ...summary.expectations.goals.failing_items.map((id) => ["corpus", id] as const),
    ...summary.expectations.fixtures.failing_items.map((id) => ["boundary", id] as const),
  ];
  const index = items
    .map(
      (i) =>
        `<tr data-item="${esc(`${i.suite}/${i.item_id}`.toLowerCase())}"><td><a href="#${esc(anchor(i.suite, i.item_id))}">${esc(`${i.suite}/${i.item_id}`)}</a></td><td>${esc(JSON.stringify(i.verdict_counts))}</td><td class="num">${fmt(i.disagreement)}</td><td>${esc(i.modal_verdict ?? "n/a")}</td><td class="num">${Object.keys(i.blocker_keys).length}</td></tr>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>fieldtest report ${esc(run.manifest.run_id)}</title><style>${CSS}</style></head>
<body><header><h1>fieldtest report</h1><div class="facts">${runFacts(run)}</div></header><main>
${run.warnings.length ? `<section class="warn"><h2>Warnings</h2><ul>${run.warnings.map((w) => `<li>${esc(w)}</li>`).join("")}</ul></section>` : ""}
<section><h2>Headline metrics</h2>${metricTable(summary.metrics, headline)}
<details><summary>All ${names.length} metrics</summary>${metricTable(summary.metrics, names)}</details></section>
${charts(run, items)}
<section><h2>Expectations</h2><p>${failing.length ? `<span class="bad">${failing.length} item(s) failed an expectation:</span> ${failing.map(([suite, id]) => `<a href="#${esc(anchor(suite, id))}">${esc(`${suite}/${id}`)}</a>`).join(", ")}` : `<span class="ok">every judged item met its expectation</span>`}</p></section>
<section><h2>Operational</h2>${metricTable(summary.operational, Object.keys(summary.operational).sort())}</section>
<section><h2>Items</h2><input id="item-filter" type="search" placeholder="filter items by id">
<table><tr><th>item</th><th>verdicts</th><th>Q</th><th>modal</th><th>blocker keys</th></tr>${index}</table></section>
${items.map((i) => itemSection(i, byItem.get(`${i.suite}/${i.item_id}`) ?? [])).join("\n")}
</main><script>${SCRIPT}</script></body></html>
`;
}
