import { fmt, verdictText } from "../report/format.ts";
import { EVIDENCE_COLORS } from "../report/html.ts";
import { directionMark } from "../report/format.ts";
import { figure, page, SORT_SCRIPT, sortable, type View } from "../report/page.ts";
import { emptyChart, esc, heatmap, PALETTE, stackedBars } from "../report/svg.ts";
import { seriesChart, type PlotSeries } from "../report/svg-plots.ts";
import type { MetricSeries, Point, Research } from "./model.ts";

/** research.html: self-contained, hash-routed views over a series of runs. Chart ids are stable for the browser test. */

export const chartId = (name: string) => `chart-${name.replace(/[^A-Za-z0-9-]/g, "-")}`;
/** Runs are R1, R2, ... on every axis; the Runs tab maps them to their names. */
export const runKey = (i: number) => `R${i + 1}`;
/** A hash for people: its first 8 hex digits. */
export const short = (h: string | null) => (h === null ? "not recorded" : h.slice(0, 8));

function pointTitle(label: string, p: Point, extra = ""): string {
  const ci = p.ci_low !== null && p.ci_high !== null ? ` [${fmt(p.ci_low)}, ${fmt(p.ci_high)}]` : "";
  return `${label}: ${fmt(p.value)}${ci} over ${p.n_items} items${extra}`;
}

function series(name: string, r: Research, points: (Point & { reference_run?: boolean })[], color?: string, alarms?: boolean[]): PlotSeries {
  return {
    name,
    ...(color ? { color } : {}),
    points: points.map((p, i) => ({
      ...p,
      low: p.ci_low,
      high: p.ci_high,
      alarm: alarms?.[i] ?? false,
      hollow: p.reference_run ?? false,
      title: pointTitle(`${runKey(i)} ${r.runs[i]!.label}${p.reference_run ? " (reference run)" : ""}`, p),
    })),
  };
}

/** Signed effects and agreement coefficients live in [−1, 1]; every other summary metric is a rate in [0, 1]. */
const SIGNED = /^(injection_effect|injection_trap_effect|critic_alpha_nominal|critic_ac1)/;
const rangeOf = (metric: string): [number, number] => (SIGNED.test(metric) ? [-1, 1] : [0, 1]);
const RATE: [number, number] = [0, 1];
const COUNT: [number, number] = [0, Number.POSITIVE_INFINITY];

/** A metric's chart over runs: its values, the reference's centre and band, the alarms ringed; small for the first screen. */
function metricChart(m: MetricSeries, r: Research, small: boolean): string {
  const { mu0, sigma0 } = m.reference;
  const limits = mu0 !== null && sigma0 !== null && sigma0 > 0 ? { low: mu0 - 3 * sigma0, high: mu0 + 3 * sigma0 } : null;
  return seriesChart({
    id: chartId(`${small ? "small" : "metric"}-${m.metric}`),
    labels: r.runs.map((_, i) => runKey(i)),
    series: [
      series(
        m.metric,
        r,
        m.points,
        undefined,
        m.points.map((p) => p.alerts.length > 0),
      ),
    ],
    center: mu0,
    limits,
    range: rangeOf(m.metric),
    small,
  });
}

function metricFigure(m: MetricSeries, r: Research): string {
  const { mu0 } = m.reference;
  const limits = m.reference.sigma0 !== null && m.reference.sigma0 > 0 && mu0 !== null;
  const chart = metricChart(m, r, false);
  const alarms = m.points.flatMap((p, i) => (p.alerts.length ? [`${runKey(i)} (${p.alerts.join(", ")})`] : []));
  const reference = m.reference.source === "baseline" ? `the baseline's ${m.reference.runs} runs` : `the first ${m.reference.runs} runs, not judged`;
  const lines = [
    `${m.meaning} Dots: each run's value with its 95% interval.`,
    mu0 === null
      ? `The reference (${reference}) has no value: nothing to chart against.`
      : `Dashed line: the reference (${reference}; hollow dots), μ0 ${fmt(mu0)}.`,
    limits ? `Band: μ0 ± 3σ0, σ0 the SD of one run the shift test used, within [${rangeOf(m.metric).join(", ")}].` : "",
    `Ringed: runs on which the shift, sustained or trailing-window chart alarmed${alarms.length ? `: ${alarms.join(", ")}` : " (none)"}.`,
    m.note && mu0 !== null ? `${m.note[0]!.toUpperCase()}${m.note.slice(1)}.` : "",
  ];
  return `<div class="fig" id="fig-${esc(m.metric)}">${figure(`${m.metric} [${m.family}] (${directionMark(m.direction)})`, chart, lines.filter(Boolean).join(" "))}</div>`;
}

/** Beside the alarm count: how large a shift of each headline rate the charts catch, so "no alarm" says what it rules out. */
function detectableBlock(r: Research): string {
  const d = r.detectable;
  if (!d) return "";
  const lines = d.lines.map((l) => `<li><code>${esc(l.metric)}</code> ${esc(l.text)}</li>`).join("");
  return `<div id="detectable"><p>${esc(d.note)}</p><ul>${lines}</ul>${d.hint ? `<p>${esc(d.hint)}</p>` : ""}</div>`;
}

/**
 * The first screen: the drift alarms (metric, family, run, size, the charts that fired, a link to
 * the metric's chart), then small multiples of the headline family.
 */
function alarmsView(r: Research): string {
  const headline = r.alarms.filter((a) => a.family === "headline").length;
  const rows = r.alarms.map(
    (a) =>
      `<tr class="alarm-row" data-family="${a.family}"><td><a class="to-chart" href="#metrics/${encodeURIComponent(a.metric)}"><code>${esc(a.metric)}</code></a></td><td>${a.family === "headline" ? '<span class="bad">headline</span>' : "exploratory"}</td><td>${esc(runKey(a.run))} ${esc(r.runs[a.run]!.label)}</td><td class="num">${fmt(a.value)}</td><td class="num">${fmt(a.reference_mean)}</td><td class="num">${fmt(a.delta)}</td><td class="num">${fmt(a.z)}</td><td>${esc(a.charts.join(", "))}</td></tr>`,
  );
  const summary = r.alarms.length
    ? `<p id="alarm-count" class="bad">${r.alarms.length} drift alarm(s), ${headline} on the headline family.</p>`
    : `<p id="alarm-count" class="ok">No drift alarm: every judged run is in control on every charted metric.</p>`;
  const table = r.alarms.length
    ? `<table id="alarms-table"><thead><tr><th>metric</th><th>family</th><th>run</th><th>value</th><th>reference</th><th>Δ</th><th>z</th><th>charts</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
    : "";
  const small = r.metrics.filter((m) => m.family === "headline");
  const multiples = small.map(
    (m) =>
      `<figure class="small"><h3><a href="#metrics/${encodeURIComponent(m.metric)}"><code>${esc(m.metric)}</code></a></h3>${metricChart(m, r, true)}</figure>`,
  );
  return `<section><h2>Drift alarms</h2>${summary}${detectableBlock(r)}<p class="muted">Reference: ${esc(r.reference)}. Each alarm links to its chart.</p>${table}</section>
<section><h2>Headline metrics (the gate's), over runs</h2><div class="multiples">${multiples.join("") || '<p class="muted">No headline metric has a value in these runs.</p>'}</div></section>`;
}

/** The metrics view scrolls to a metric's chart when the hash names one (#metrics/critic_miss_rate). */
const METRIC_ROUTE = `
routes.metrics = function (arg) { var el = arg && document.getElementById("fig-" + arg); if (el) el.scrollIntoView(); };
`;

function runsView(r: Research): string {
  const rows = r.runs.map(
    (run, i) =>
      `<tr><td data-v="${i}">${runKey(i)}</td><td data-v="${esc(run.label)}">${esc(run.label)}</td><td data-v="${esc(run.started_at)}">${esc(run.started_at)}</td><td data-v="${esc(run.critic)}">${esc(run.critic)}</td><td data-v="${esc(run.critic_prompt ?? "")}"><code>${esc(short(run.critic_prompt))}</code></td><td data-v="${esc(run.mode)}">${esc(run.mode)} · ≤ ${run.max_rounds} rounds</td><td data-v="${esc(run.suites.join(","))}">${esc(run.suites.join(", "))}${run.sim_profile ? ` <span class="badge sim">simulated · ${esc(run.sim_profile)}</span>` : ""}</td><td class="num" data-v="${run.items}">${run.items}</td><td class="num" data-v="${run.trials}">${run.trials}</td><td class="num" data-v="${run.calls}">${run.calls}</td></tr>`,
  );
  const variants = r.prompts.map(
    (p) =>
      `<tr data-prompt="${esc(p.critic_prompt ?? "")}"><td><code>${esc(short(p.critic_prompt))}</code></td><td>${esc(p.runs.map((l) => runKey(r.runs.findIndex((x) => x.label === l))).join(", "))}</td><td class="num">${p.audits}</td><td class="num">${p.raw_blockers}</td><td class="num">${p.advisory_raw_blockers}</td><td class="num">${fmt(p.advisory_blockers_per_audit)}</td><td class="num">${fmt(p.downgrade_rate["downgrade_rate"])}</td><td>${esc(
        Object.entries(p.downgrade_rate)
          .filter(([k, v]) => k !== "downgrade_rate" && v !== null)
          .map(([k, v]) => `${k.slice("downgrade_rate.".length)} ${fmt(v)}`)
          .join(" · ") || "no raw blocker",
      )}</td></tr>`,
  );
  return `<section><h2>Runs, oldest first</h2><table id="runs-table"><thead><tr>${sortable("run", "num")}${sortable("name", "text")}${sortable("started", "text")}${sortable("critic", "text")}${sortable("critic prompt", "text")}${sortable("mode", "text")}${sortable("suites", "text")}${sortable("items", "num")}${sortable("trials", "num")}${sortable("calls", "num")}</tr></thead><tbody>${rows.join("")}</tbody></table></section>
<section><h2>Critic prompt variants</h2><p>Runs grouped by the SHA-256 of the critic's system prompt, pooled: how often the critic called an advisory concern (risk, missing_steps: families that may not block) a blocker, and how many of its raw blockers code had to lower.</p>
<table id="prompts-table"><thead><tr><th>critic prompt</th><th>runs</th><th>audits</th><th>raw blockers</th><th>advisory raw blockers</th><th>advisory blockers per audit</th><th>downgrade rate</th><th>downgrade rate by family</th></tr></thead><tbody>${variants.join("")}</tbody></table></section>`;
}

function criticView(r: Research): string {
  const labels = r.runs.map((_, i) => runKey(i));
  const downgrade = Object.entries(r.critic.downgrade)
    .filter(([, points]) => points.some((p) => p.value !== null))
    .map(([k, points], j) =>
      series(
        k === "downgrade_rate" ? "all families" : k.slice("downgrade_rate.".length),
        r,
        points,
        k === "downgrade_rate" ? "#1d2733" : PALETTE[j % PALETTE.length],
      ),
    );
  const raw = Object.entries(r.critic.raw_blockers).filter(([, v]) => v.some((n) => n > 0));
  const anyFinding = Object.values(r.critic.evidence_status).some((v) => v.some((n) => n > 0));
  return `<section><h2>The critic over runs</h2><p>Every completed critic audit of each run, whatever its suite (boundary, corpus, imported): the signs that the judge itself drifts, before a verdict moves.</p><div class="charts">
${figure("Downgrade rate by family", downgrade.length ? seriesChart({ id: "chart-downgrade", labels, series: downgrade, range: RATE }) : emptyChart("chart-downgrade", "no raw blocker in any run"), "Share of the critic's raw blockers that code lowered (the family may not block, or the plan refuted the evidence), per normalized family, with 95% cluster-bootstrap intervals.")}
${figure("Advisory blockers per audit", seriesChart({ id: "chart-advisory", labels, series: [series("advisory raw blockers per audit", r, r.critic.advisory_blockers_per_audit)], range: COUNT }), "Raw blockers in risk or missing_steps (families that may not block) per completed audit, mean over items with its interval (t; at 0, the exact Poisson bound over the audits): an over-eager critic prompt shows here first.")}
${figure("Evidence status over runs", anyFinding ? stackedBars({ id: "chart-evidence-runs", categories: labels, series: Object.entries(r.critic.evidence_status).map(([s, v]) => ({ name: s, color: EVIDENCE_COLORS[s], values: v })) }) : emptyChart("chart-evidence-runs", "no critic finding in any run"), "Critic findings per run by the deterministic evidence check's status.")}
${figure("Raw blockers by family", raw.length ? stackedBars({ id: "chart-raw-blockers", categories: labels, series: raw.map(([f, v]) => ({ name: f, values: v })) }) : emptyChart("chart-raw-blockers", "no raw blocker in any run"), "What the critic itself called a blocker, per family, before normalization.")}
${figure("Unsupported evidence", seriesChart({ id: "chart-unsupported", labels, series: [series("unsupported evidence rate", r, r.critic.unsupported_evidence)], range: RATE }), "Share of checkable critic findings the plan contradicts or that cite a missing task.")}
</div></section>`;
}

function confusionView(r: Research): string {
  const shown = r.confusion.map((c, i) => ({ ...c, i })).filter((c) => c.defects > 0);
  const none = r.confusion
    .map((c, i) => ({ ...c, i }))
    .filter((c) => c.defects === 0)
    .map((c) => runKey(c.i));
  const charts = shown.map((c) =>
    figure(
      `${runKey(c.i)} ${c.label}`,
      heatmap({
        id: `chart-confusion-${c.i + 1}`,
        rows: [...c.confusion.rows],
        cols: [...c.confusion.columns],
        cells: c.confusion.counts,
        rowTitle: "intended",
        colTitle: "observed",
      }),
      `${c.defects} seeded defect × trial pairs: the intended family (rows) × the family the critic filed it under (columns).`,
    ),
  );
  return `<section><h2>Family confusion per run</h2>${none.length ? `<p class="muted">No seeded-defect fixture in ${esc(none.join(", "))} (imported and corpus-only runs have none).</p>` : ""}<div class="charts">${charts.join("\n")}</div></section>`;
}

function swapView(r: Research): string {
  if (r.swap === null)
    return `<section><h2>Model swap</h2><p>A comparison needs two runs: <code>fieldtest research RUNS... --a RUN --b RUN</code>.</p></section>`;
  const c = r.swap.comparison;
  const key = (label: string) => runKey(r.runs.findIndex((x) => x.label === label));
  const suites = c.suites.map((s) => {
    const pairs = Object.entries(s.transitions).map(([t, n]) => [...t.split(" → "), n] as [string, string, number]);
    const rows = [...new Set(pairs.map((p) => p[0]))].sort();
    const cols = [...new Set(pairs.map((p) => p[1]))].sort();
    const cells = rows.map((b) => cols.map((a) => pairs.find((p) => p[0] === b && p[1] === a)?.[2] ?? 0));
    const changed = s.changed_items.map(
      (ch) =>
        `<tr data-item="${esc(ch.item)}"><td>${esc(ch.item)}</td><td>${esc(verdictText(ch.b))}</td><td>${esc(verdictText(ch.a))}</td><td>${esc(ch.causes.join(", ") || "none recorded")}</td></tr>`,
    );
    return `<h3>${esc(s.suite)}: ${s.n_items} paired items</h3>${figure(
      "Modal verdict transitions (B rows → A columns)",
      rows.length
        ? heatmap({ id: chartId(`transitions-${s.suite}`), rows, cols, cells, rowTitle: "B", colTitle: "A" })
        : emptyChart(chartId(`transitions-${s.suite}`), "no item with a verdict in both runs"),
      `McNemar (${s.mcnemar.method}) on item-level blocking: ${s.mcnemar.b} newly blocking in A, ${s.mcnemar.c} no longer blocking, p ${fmt(s.mcnemar.p)}; excess disagreement ${fmt(s.excess_disagreement.statistic)} (permutation p ${fmt(s.excess_disagreement.p)}).`,
    )}
<table class="flips"><thead><tr><th>item that flipped</th><th>B verdicts</th><th>A verdicts</th><th>recorded causes</th></tr></thead><tbody>${changed.join("") || `<tr><td colspan="4">no modal verdict changed</td></tr>`}</tbody></table>`;
  });
  const diffs = c.differences.length
    ? `<ul id="swap-differences">${c.differences.map((d) => `<li data-part="${esc(d.part)}"><code>${esc(d.part)}</code> (${esc(d.kind)}): ${esc(String(d.baseline))} → ${esc(String(d.candidate))}</li>`).join("")}</ul>`
    : "<p>No recorded configuration difference.</p>";
  const metrics = c.metrics
    .filter((m) => m.n_items > 0)
    .map(
      (m) =>
        `<tr${m.beyond_noise ? ' class="bad"' : ""}><td><code>${esc(m.metric)}</code></td><td class="num">${fmt(m.b)}</td><td class="num">${fmt(m.a)}</td><td class="num">${fmt(m.delta)}${m.ci_low !== null ? ` [${fmt(m.ci_low)}, ${fmt(m.ci_high)}]` : ""}</td><td class="num">${fmt(m.p_holm)}</td><td class="num">${m.n_items}</td></tr>`,
    );
  const p = c.profile;
  const profile = p.cells.map(
    (x) =>
      `<tr><td>${esc(x.origin)}</td><td>${esc(x.family)}</td><td class="num">${fmt(x.b)}</td><td class="num">${fmt(x.a)}</td><td class="num">${fmt(x.delta)}${x.ci_low !== null ? ` [${fmt(x.ci_low)}, ${fmt(x.ci_high)}]` : ""}</td></tr>`,
  );
  const d = p.distance;
  return `<section><h2>Model swap: A ${esc(key(r.swap.a))} ${esc(r.swap.a)} against B ${esc(key(r.swap.b))} ${esc(r.swap.b)}</h2>
<p id="swap-verdict" class="${c.verdict.differs ? "bad" : "ok"}">${esc(c.verdict.line)}</p>
<p>Items: ${c.coverage.paired.length} paired, ${c.coverage.changed.length} changed content (not paired), ${c.coverage.only_baseline.length} only in B, ${c.coverage.only_candidate.length} only in A.</p>
<h3>Recorded configuration differences (the causes a change can be attributed to)</h3>${diffs}${suites.join("")}
<h3>Paired metric deltas (A − B; Holm across the paired metrics)</h3><table><thead><tr><th>metric</th><th>B</th><th>A</th><th>Δ [95% interval]</th><th>Holm p</th><th>items</th></tr></thead><tbody>${metrics.join("") || `<tr><td colspan="6">no per-item metric in both runs</td></tr>`}</tbody></table>
<h3>Defect-family profile over ${p.n_goals} goals (blockers per goal, B → A)</h3><table id="swap-profile"><thead><tr><th>origin</th><th>family</th><th>B</th><th>A</th><th>Δ [95% interval]</th></tr></thead><tbody>${profile.join("") || `<tr><td colspan="5">no blocker in either run</td></tr>`}</tbody></table>
<p>${d.statistic === null ? "No blocker in one of the runs: no profile to compare." : `Distance between the profiles' shapes ${fmt(d.statistic)} [${fmt(d.ci_low)}, ${fmt(d.ci_high)}] (0: the same mix of mistakes), permutation p ${fmt(d.p)} for the same profile.`}</p></section>`;
}

function operationsView(r: Research): string {
  const labels = r.runs.map((_, i) => runKey(i));
  const plain = (name: string, values: (number | null)[], color?: string): PlotSeries => ({
    name,
    ...(color ? { color } : {}),
    points: values.map((v, i) => ({ value: v, title: `${runKey(i)} ${r.runs[i]!.label}: ${fmt(v)}` })),
  });
  const unknownCost = r.operations.cost_usd.map((c, i) => (c === null ? runKey(i) : null)).filter(Boolean);
  const lowerBound = r.operations.cost_is_lower_bound.map((b, i) => (b ? runKey(i) : null)).filter(Boolean);
  return `<section><h2>Cost and latency over runs</h2><div class="charts">
${figure("Cost per run (USD)", r.operations.cost_usd.some((c) => c !== null) ? seriesChart({ id: "chart-cost-runs", labels, series: [plain("cost", r.operations.cost_usd)], format: (v) => `$${Number(v.toPrecision(2))}` }) : emptyChart("chart-cost-runs", "no run has a known cost"), `What each run spent, from its spend journal (every session, killed ones included).${lowerBound.length ? ` A lower bound (calls of unknown cost) for ${lowerBound.join(", ")}.` : ""}${unknownCost.length ? ` Unknown (no spend journal, never read as 0) for ${unknownCost.join(", ")}: not drawn.` : ""}`)}
${figure("Trial latency (ms)", seriesChart({ id: "chart-latency-runs", labels, series: [plain("p50", r.operations.latency_ms_p50, PALETTE[0]), plain("p95", r.operations.latency_ms_p95, PALETTE[1])], range: COUNT }), "Median and 95th percentile of trial wall time, pooled over the run's trials.")}
${figure("LLM calls per trial", seriesChart({ id: "chart-calls-runs", labels, series: [plain("calls per trial", r.operations.calls_per_trial)], range: COUNT }), "Model calls per trial (structured-output attempts, retries included).")}
</div></section>`;
}

export function renderResearchHtml(r: Research): string {
  const views: View[] = [
    { id: "alarms", title: `Alarms (${r.alarms.length})`, body: alarmsView(r) },
    { id: "runs", title: `Runs (${r.runs.length})`, body: runsView(r) },
    {
      id: "metrics",
      title: "Metrics over runs",
      body: `<section><h2>Headline metrics over runs</h2><p class="muted">${esc(r.trend_caveat)}</p><div class="charts">${r.metrics.map((m) => metricFigure(m, r)).join("\n")}</div></section>`,
    },
    { id: "critic", title: "Critic drift", body: criticView(r) },
    { id: "confusion", title: "Confusion", body: confusionView(r) },
    { id: "swap", title: "Model swap", body: swapView(r) },
    { id: "operations", title: "Cost & latency", body: operationsView(r) },
  ];
  const simulated = r.runs.filter((x) => x.sim_profile !== null).length;
  return page({
    title: `fieldtest research: ${r.runs.length} runs`,
    heading: "fieldtest research",
    badges: simulated ? `<span class="badge sim">SIMULATED · ${simulated} of ${r.runs.length} runs on the sim provider</span>` : "",
    facts: esc(
      `${r.runs.length} runs from ${r.runs[0]?.started_at ?? "?"} to ${r.runs.at(-1)?.started_at ?? "?"} · ${r.runs.reduce((n, x) => n + x.trials, 0)} trials · ${r.prompts.length} critic prompt variant(s)`,
    ),
    views,
    data: "",
    script: SORT_SCRIPT + METRIC_ROUTE,
    css: ".multiples{display:flex;flex-wrap:wrap;gap:10px}figure.small{margin:0}figure.small h3{font-size:12px;margin:0}",
  });
}
