import { EVIDENCE_STATUSES } from "../../src/formats/findings.ts";
import { TRIAL_STATUSES, type TrialRecord } from "../../src/formats/records.ts";
import type { ItemSummary } from "../../src/metrics/items.ts";
import type { MetricValue } from "../../src/metrics/types.ts";
import { criticFindings } from "../../src/metrics/trial-facts.ts";
import { gateOutcome, type Decision, type ForestRow } from "./decision.ts";
import { directionMark, fmt, fmtMetric, forestDelta, modelLabel, noInterval, runOrigin, SPEND_COLUMNS, spendNote, spendRows, verdictText } from "./format.ts";
import { simProfileOf, type LoadedRun } from "../run/load.ts";
import { metricInfo } from "../../src/metrics/catalogue.ts";
import { figure, jsonScript, page, SORT_SCRIPT, sortable, type View } from "./page.ts";
import { barChart, emptyChart, esc, heatmap, histogram, stackedBars } from "./svg.ts";
import { forestPlot } from "./svg-plots.ts";
import type { ItemDetail } from "./triage.ts";
import { suitesHtml } from "./suites.ts";
import { renderSections, type Expectations, type Renderings, type ReportModel, type ReportSection, type SectionOf } from "./model.ts";
import { transcriptChunks } from "./transcript.ts";
import { TRANSCRIPT_SCRIPT, TRANSCRIPT_VIEW, trialHref } from "./transcript-view.ts";

/** Ids of the charts report.html always draws; `chart-forest` joins them when the report decides against a baseline. */
export const CHART_IDS = ["chart-flip", "chart-confusion", "chart-evidence", "chart-latency", "chart-cost", "chart-tokens"] as const;
export const FOREST_CHART_ID = "chart-forest";

/** Rows of the items table per page. */
export const ITEMS_PER_PAGE = 50;

export const EVIDENCE_COLORS: Record<string, string> = {
  supported: "#4f9d69",
  contradicted: "#c44e52",
  unsupported_reference: "#e07b39",
  uncheckable: "#9aa3ad",
};
const STATUS_COLORS: Record<string, string> = { approved: "#4f9d69", escalated: "#e07b39", error: "#c44e52" };
const OUTCOME_COLORS: Record<string, string> = { pass: "#1e7b34", fail: "#b3261e", inconclusive: "#d08a1d", error: "#6a2c8a" };

const DECISION_TITLES: Record<string, string> = {
  pass: "PASS",
  regression: "REGRESSION",
  inconclusive: "INCONCLUSIVE",
  infrastructure: "INFRASTRUCTURE ERROR",
};

function metricTable(metrics: Record<string, MetricValue>, names: string[]): string {
  const rows = names.map((n) => {
    const m = metrics[n]!;
    const info = metricInfo(n);
    return `<tr><td><code>${esc(n)}</code></td><td class="num">${esc(fmtMetric(m))}</td><td>${esc(directionMark(info.direction))}</td><td>${esc(info.meaning)}</td><td class="num">${m.n_items}</td><td class="num">${m.n_trials}</td></tr>`;
  });
  return `<table><thead><tr><th>metric</th><th>value [95% interval]</th><th>direction</th><th>meaning</th><th>items</th><th>trials</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
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
        bars: unstable.map((i) => ({
          label: i.item_id,
          value: i.disagreement,
          title: `${i.item_id}: Q = ${fmt(i.disagreement)}; verdicts ${verdictText(i.verdict_counts)}`,
        })),
        max: 1,
      })
    : emptyChart("chart-flip", `no boundary fixture flipped (${boundary.length} fixtures)`);
  const conf = summary.family_confusion;
  const confusion = heatmap({
    id: "chart-confusion",
    rows: [...conf.rows],
    cols: [...conf.columns],
    cells: conf.counts,
    rowTitle: "intended",
    colTitle: "observed",
  });
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

function forestRow(r: ForestRow): Parameters<typeof forestPlot>[0]["rows"][number] {
  const outcome = gateOutcome(r);
  const parts = [
    `${r.metric} (${directionMark(r.direction)}): ${fmt(r.baseline)} → ${fmt(r.candidate)}`,
    `Δ ${forestDelta(r)}`,
    r.gate ? `margin ${r.gate.outcome}: ${r.gate.message}` : "no margin in the policy",
    r.floor ? `floor ${r.floor.outcome}: ${r.floor.message}` : "",
  ].filter(Boolean);
  return {
    label: r.metric,
    delta: r.delta,
    low: r.ci_low,
    high: r.ci_high,
    bound: r.gate?.bound ?? null,
    margin: r.gate?.margin ?? null,
    color: outcome === null ? "#56616d" : OUTCOME_COLORS[outcome]!,
    title: parts.join("; "),
    note: noInterval(r),
  };
}

function banner(decision: Decision | null): string {
  if (decision === null) {
    return `<div class="banner none compact" id="verdict" data-decision="none"><h2>No release decision</h2><p>Written without a baseline: <code>fieldtest report DIR --baseline baselines/NAME.json [--policy gate.yaml]</code> runs the release gate and shows its verdict here.</p></div>`;
  }
  const r = decision.result;
  const listed = r.checks.filter((c) => c.outcome !== "pass");
  const items = listed.map(
    (c) =>
      `<li data-check="${esc(c.name)}" data-outcome="${esc(c.outcome)}"><b>${esc(c.outcome === "error" ? "error" : c.outcome)}</b> <code>${esc(c.name)}</code>: ${esc(c.message)}</li>`,
  );
  return `<div class="banner ${esc(r.decision)}" id="verdict" data-decision="${esc(r.decision)}" data-exit="${r.exit}" data-failed="${esc(r.failed.join(","))}">
<h2>${esc(DECISION_TITLES[r.decision]!)}</h2><p><code>${esc(decision.verdict)}</code> (exit ${r.exit}, as <code>fieldtest gate</code> decides)</p>
<p>against baseline <b>${esc(decision.baseline.name)}</b>${decision.baseline.run_id ? ` (${esc(decision.baseline.run_id)})` : ""} with policy <code>${esc(decision.policy.file)}</code>: ${r.checks.length} checks, ${r.checks.length - listed.length} passed</p>
${items.length ? `<ul id="failing-checks">${items.join("")}</ul>` : ""}</div>`;
}

/** The expectations in one panel: how many items failed, of which checks, and what that means for this run's providers. */
function expectationsPanel({ judged, failed, checks, meaning, trials }: Expectations): string {
  if (judged === 0) {
    const why = trials === 0 ? "the run has no trial left to judge" : `none of its ${trials} trial(s) reached a verdict an expectation could judge`;
    return `<section class="warn" id="expectations" data-judged="0"><h2>Expectations</h2><p class="bad">No item was judged against its expectation: ${esc(why)}. Nothing here says the run met its expectations.</p></section>`;
  }
  const head = failed
    ? `<a href="#items/fail" class="bad">${failed} of ${judged} judged item(s) failed an expectation</a>`
    : `<span class="ok">every judged item (${judged}) met its expectation</span>`;
  return `<section id="expectations" data-judged="${judged}" data-failed="${failed}"><h2>Expectations</h2><p>${head}. Expectations describe items; a release decision is the gate's.</p>
${checks.length ? `<p id="failed-checks">By check: ${checks.map((c) => `<span data-check="${esc(c.check)}"><code>${esc(c.check)}</code> ${c.items} item(s), ${c.trials} trial(s)</span>`).join(" · ")}</p>` : ""}
<p id="expectation-meaning">${esc(meaning)}</p></section>`;
}

/** The headline metrics the run measured, with their direction and meaning: the first screen's answer without a baseline. */
function headlinePanel({ rows, unmeasured }: SectionOf<"headline">): string {
  const body = rows.map(
    (r) =>
      `<tr data-metric="${esc(r.name)}"><td><code>${esc(r.name)}</code></td><td class="num nowrap">${esc(fmtMetric(r.value))}</td><td class="nowrap">${esc(directionMark(r.direction))}</td><td>${esc(r.meaning)}</td><td class="num">${r.value.n_items}</td></tr>`,
  );
  return `<section id="headline"><h2>Headline metrics</h2>${
    rows.length
      ? `<table><thead><tr><th>metric</th><th>value [95% interval]</th><th>direction</th><th>meaning</th><th>items</th></tr></thead><tbody>${body.join("")}</tbody></table>`
      : "<p>No headline metric has an item in this run.</p>"
  }${unmeasured.length ? `<p class="muted">No item in this run for ${esc(unmeasured.join(", "))}.</p>` : ""}</section>`;
}

function gateCell(r: ForestRow): string {
  const part = (label: string, o: string) => `<span style="color:${OUTCOME_COLORS[o]}">${esc(label)} ${esc(o)}</span>`;
  const parts = [
    r.gate ? part("margin", r.gate.outcome) : "",
    r.floor
      ? part(
          `floor ${r.floor.on === "value" ? "" : `(${r.floor.on.replace("_", " ")}) `}${r.floor.max !== null ? `≤ ${fmt(r.floor.max)}` : `≥ ${fmt(r.floor.min)}`}`,
          r.floor.outcome,
        )
      : "",
  ].filter(Boolean);
  return parts.length ? parts.join("<br>") : "not gated";
}

function warningsPanel(warnings: readonly string[]): string {
  return warnings.length ? `<section class="warn" id="warnings"><h2>Warnings</h2><ul>${warnings.map((w) => `<li>${esc(w)}</li>`).join("")}</ul></section>` : "";
}

/** The gate's verdict, and with a baseline what changed against it. */
function decisionPanel(decision: Decision | null): string {
  if (decision === null) return banner(null);
  const forest = forestPlot({ id: FOREST_CHART_ID, rows: decision.forest.map(forestRow) });
  const rows = decision.forest.map(
    (r) =>
      `<tr data-metric="${esc(r.metric)}"><td><code>${esc(r.metric)}</code></td><td>${esc(directionMark(r.direction))}</td><td class="num">${fmt(r.baseline)}</td><td class="num">${fmt(r.candidate)}</td><td class="num">${esc(forestDelta(r))}</td><td class="num">${r.gate ? fmt(r.gate.margin) : "–"}</td><td>${gateCell(r)}</td><td>${esc(r.meaning)}</td></tr>`,
  );
  return `${banner(decision)}
<section><h2>What changed against the baseline</h2>${figure("Headline metrics: change against the baseline", forest, "Dot: candidate − baseline (paired per item where the metric has per-item values); line: its 95% interval, or, where there is none, the reason in grey at the right; dashed red tick: the policy's non-inferiority margin; short bar: the gate's one-sided bound. Colour is the gate's worst outcome for the metric, margin or floor (grey: not gated).")}
<table><thead><tr><th>metric</th><th>direction</th><th>baseline</th><th>candidate</th><th>Δ [95% interval]</th><th>margin</th><th>gate</th><th>meaning</th></tr></thead><tbody>${rows.join("")}</tbody></table></section>`;
}

/** A failed check with its count, linked to the transcript of the first trial that failed it. */
function failedCheckLinks(d: ItemDetail): string {
  return Object.entries(d.row.failed_checks)
    .map(([check, n]) => {
      const first = d.trials.find((t) => t.failures.some((f) => f.startsWith(`${check}: `)));
      const label = esc(`${check} ×${n}`);
      return first === undefined
        ? label
        : `<a href="${esc(trialHref(d.row.key, first.trial))}" title="transcript of trial ${first.trial}, the first to fail it">${label}</a>`;
    })
    .join(", ");
}

function itemsView(details: readonly ItemDetail[]): string {
  const suites = [...new Set(details.map((d) => d.row.suite))].sort();
  const body = details.map((d) => {
    const r = d.row;
    const failed = Object.entries(r.failed_checks)
      .map(([c, n]) => `${c} ×${n}`)
      .join(", ");
    return `<tr data-key="${esc(r.key)}" data-suite="${esc(r.suite)}" data-expectation="${r.expectation}" data-unstable="${(r.disagreement ?? 0) > 0}">
<td data-v="${esc(r.key)}"><a href="#item/${esc(encodeURIComponent(r.key))}">${esc(r.item_id)}</a></td><td data-v="${esc(r.suite)}">${esc(r.suite)}</td><td data-v="${esc(r.expected ?? "")}">${esc(r.expected ?? "–")}</td><td data-v="${esc(verdictText(r.verdict_counts))}">${esc(verdictText(r.verdict_counts))}</td><td data-v="${esc(r.modal_verdict ?? "")}">${esc(r.modal_verdict ?? "n/a")}</td><td class="num" data-v="${r.disagreement ?? ""}">${fmt(r.disagreement)}</td><td data-v="${r.expectation}" class="${r.expectation === "fail" ? "bad" : ""}">${esc(r.expectation.replace("_", " "))}</td><td data-v="${esc(failed)}">${failedCheckLinks(d)}</td><td class="num" data-v="${r.blocker_keys}">${r.blocker_keys}</td></tr>`;
  });
  return `<section><h2>Items</h2><div class="filters">
<input id="item-filter" type="search" placeholder="filter by id or failed check">
<label>suite <select id="suite-filter"><option value="">all</option>${suites.map((s) => `<option>${esc(s)}</option>`).join("")}</select></label>
<label>expectation <select id="exp-filter"><option value="">all</option><option value="fail">failed</option><option value="pass">passed</option><option value="not_judged">not judged</option><option value="no_definition">no definition</option></select></label>
<label><input id="unstable-filter" type="checkbox"> trials disagree</label></div>
<table id="items-table"><thead><tr>${sortable("item", "text")}${sortable("suite", "text")}${sortable("expected", "text")}${sortable("verdicts", "text")}${sortable("modal", "text")}${sortable("Q", "num")}${sortable("expectation", "text")}${sortable("failed checks", "text")}${sortable("blocker keys", "num")}</tr></thead><tbody>${body.join("")}</tbody></table>
<div class="pager"><button id="page-prev">previous</button><span id="page-info"></span><button id="page-next">next</button></div></section>`;
}

const ITEMS_SCRIPT = `
var ITEMS = JSON.parse(document.getElementById("item-data").textContent);
var table = document.getElementById("items-table"), pageNo = 0, PER = ${ITEMS_PER_PAGE};
function matching() {
  var q = document.getElementById("item-filter").value.toLowerCase();
  var suite = document.getElementById("suite-filter").value, exp = document.getElementById("exp-filter").value;
  var unstable = document.getElementById("unstable-filter").checked;
  return Array.prototype.filter.call(table.tBodies[0].rows, function (r) {
    var ok = (!q || r.textContent.toLowerCase().indexOf(q) >= 0) && (!suite || r.getAttribute("data-suite") === suite) && (!exp || r.getAttribute("data-expectation") === exp) && (!unstable || r.getAttribute("data-unstable") === "true");
    r.style.display = "none";
    return ok;
  });
}
function paint() {
  var rows = matching(), pages = Math.max(1, Math.ceil(rows.length / PER));
  pageNo = Math.min(pageNo, pages - 1);
  rows.slice(pageNo * PER, (pageNo + 1) * PER).forEach(function (r) { r.style.display = ""; });
  document.getElementById("page-info").textContent = rows.length ? "items " + (pageNo * PER + 1) + "–" + Math.min(rows.length, (pageNo + 1) * PER) + " of " + rows.length : "no item matches";
  document.getElementById("page-prev").disabled = pageNo === 0;
  document.getElementById("page-next").disabled = pageNo >= pages - 1;
}
["item-filter", "suite-filter", "exp-filter", "unstable-filter"].forEach(function (id) { document.getElementById(id).addEventListener("input", function () { pageNo = 0; paint(); }); });
document.getElementById("page-prev").addEventListener("click", function () { pageNo--; paint(); });
document.getElementById("page-next").addEventListener("click", function () { pageNo++; paint(); });
table.onsorted = paint;
routes.items = function (arg) { if (arg) { document.getElementById("exp-filter").value = arg; pageNo = 0; } paint(); };
function finding(f) {
  return "<li" + (f.blocks ? " class=\\"blocks\\"" : "") + ">" + esc(f.family) + "/" + esc(f.severity) + (f.raw_severity.toLowerCase() !== f.severity ? " (said " + esc(f.raw_severity) + ")" : "") +
    " · " + esc(f.evidence_status) + " @" + esc(f.task || "plan") + (f.claim ? " · claims " + esc(f.claim) : "") + (f.rules.length ? " · " + esc(f.rules.join(", ")) : "") + (f.blocks ? " · BLOCKS" : "") +
    "<br><span class=\\"muted\\">" + esc(f.message) + "</span></li>";
}
function round(r) {
  var out = "<div class=\\"round\\"><b>round " + r.index + "</b>: " + esc(r.decision) + (r.reason ? " (" + esc(r.reason) + ")" : "") + " · " + r.tasks + " tasks";
  if (r.gate.length) out += "<div>gates: " + r.gate.map(function (g) { return "<code>" + esc(g) + "</code>"; }).join(" ") + "</div>";
  if (r.repairs.length) out += "<div>repairs: " + r.repairs.map(esc).join("; ") + "</div>";
  if (r.critic) out += "<div>critic: " + esc(r.critic.outcome) + (r.critic.reason ? " (" + esc(r.critic.reason) + ")" : "") + (r.critic.malformed ? ", " + r.critic.malformed + " malformed dropped" : "") + "<ul>" + r.critic.findings.map(finding).join("") + "</ul></div>";
  else out += "<div class=\\"muted\\">critic did not run</div>";
  if (r.blockers.length) out += "<div>blockers:<ul>" + r.blockers.map(function (b) {
    return "<li><code>" + esc(b.key) + "</code> " + esc(b.origin) + (b.carried ? ", carried forward" : "") + ", blocking since round " + b.since + "</li>";
  }).join("") + "</ul></div>";
  return out + "</div>";
}
function trial(t, key) {
  var href = trialHref(key, t.trial);
  return "<div class=\\"trial\\"><h4>trial " + t.trial + ": " + esc(t.verdict) + (t.verdict !== t.status ? " (" + esc(t.status) + ")" : "") + " <a class=\\"transcript-link\\" href=\\"" + href + "\\">transcript →</a></h4>" +
    (t.reasons.length ? "<div>reasons: " + esc(t.reasons.join(", ")) + "</div>" : "") + (t.error ? "<div class=\\"bad\\">error: " + esc(t.error) + "</div>" : "") + (t.rejected ? "<div class=\\"bad\\">last rejected answer: " + esc(t.rejected) + "</div>" : "") +
    (t.failures.length ? "<div class=\\"bad\\">failed: " + t.failures.map(function (f) { return "<a href=\\"" + href + "\\">" + esc(f) + "</a>"; }).join("; ") + "</div>" : "") +
    "<div class=\\"muted\\">" + t.rounds.length + " rounds · " + t.calls + " calls · " + fmt(t.latency_ms) + " ms · cost " + (t.cost_usd === null ? "n/a" : "$" + t.cost_usd.toFixed(4)) + "</div>" + t.rounds.map(round).join("") + "</div>";
}
routes.item = function (key) {
  var at = -1;
  ITEMS.forEach(function (d, i) { if (d.row.key === key) at = i; });
  var box = document.getElementById("item-view");
  if (at < 0) { box.innerHTML = "<p>Pick an item on the <a href=\\"#items\\">Items</a> tab" + (key ? " (no item " + esc(key) + ")" : "") + ".</p>"; return; }
  var d = ITEMS[at], r = d.row, nav = function (i, label) { return i >= 0 && i < ITEMS.length ? "<a href=\\"#item/" + encodeURIComponent(ITEMS[i].row.key) + "\\">" + label + "</a>" : ""; };
  var failed = Object.keys(r.failed_checks).map(function (c) { return c + " ×" + r.failed_checks[c]; }).join(", ");
  box.innerHTML = "<p>" + nav(at - 1, "← previous") + " " + nav(at + 1, "next →") + "</p><h2 data-item=\\"" + esc(r.key) + "\\">" + esc(r.key) + "</h2><p>expected <b>" + esc(r.expected || "–") + "</b> · verdicts " +
    esc(Object.keys(r.verdict_counts).map(function (v) { return v + " " + r.verdict_counts[v]; }).join(" · ")) + " · modal " + esc(r.modal_verdict || "n/a") + " · Q " + fmt(r.disagreement) +
    " · expectation <span class=\\"" + (r.expectation === "fail" ? "bad" : "") + "\\">" + esc(r.expectation.replace("_", " ")) + "</span>" + (failed ? " (" + esc(failed) + ")" : "") + "</p><div class=\\"trials\\">" + d.trials.map(function (t) { return trial(t, r.key); }).join("") + "</div>";
};
`;

function runPanel({ manifest: m, spend }: SectionOf<"run">): string {
  const role = (r: "planner" | "critic") => {
    const x = m.roles[r] as Record<string, unknown> & { provider: string; model: string; temperature: number | null };
    const prompt = x.prompt as { system_sha256?: string } | undefined;
    return `<tr><td>${r}</td><td>${esc(x.provider)}</td><td>${esc(x.model)}</td><td>${esc(String(x.temperature ?? "unset"))}</td><td><code>${esc(prompt?.system_sha256?.slice(0, 16) ?? "not recorded")}</code></td></tr>`;
  };
  const facts: [string, string][] = [
    ["run", `${m.run_id} (${m.state}${runOrigin(m) ? `; ${runOrigin(m)}` : ""})`],
    ["time", `${m.started_at} → ${m.finished_at ?? "unfinished"}`],
    ["trials", `${m.plan.trials} per item, seed ${m.config.seed}, mode ${m.config.mode}, at most ${m.config.maxRounds} rounds`],
    ["hashes", `config ${m.config_hash.slice(0, 16)} · corpus ${m.corpus.hash.slice(0, 16)}`],
    ["canary", m.canary === null ? "not run" : m.canary.ok ? "passed" : `FAILED: ${m.canary.failures.join("; ")}`],
    ["git", `${m.git.sha ?? "unknown"}${m.git.dirty ? " (dirty)" : ""}`],
    ["command", m.command.join(" ")],
  ];
  return `<section><h2>Run</h2><table><tbody>${facts.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join("")}</tbody></table>
<h3>Roles</h3><table><thead><tr><th>role</th><th>provider</th><th>model</th><th>temperature</th><th>system prompt</th></tr></thead><tbody>${role("planner")}${role("critic")}</tbody></table>
<h3>Spend</h3>${
    spend
      ? `<table id="spend"><thead><tr>${SPEND_COLUMNS.map((c) => `<th>${esc(c)}</th>`).join("")}</tr></thead><tbody>${spendRows(spend)
          .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`)
          .join("")}</tbody></table>`
      : ""
  }<p>${esc(spendNote(spend))}</p></section>`;
}

/** Every check of the gate, the recorded configuration differences and the per-item deltas: the decision's detail. */
function checksPanel(decision: Decision | null): string {
  return decision
    ? `<section><h2>Every gate check</h2><table id="gate-checks"><thead><tr><th>outcome</th><th>check</th><th>kind</th><th>message</th></tr></thead><tbody>${decision.result.checks
        .map(
          (c) =>
            `<tr data-check="${esc(c.name)}"><td style="color:${OUTCOME_COLORS[c.outcome]}">${esc(c.outcome)}</td><td><code>${esc(c.name)}</code></td><td>${esc(c.kind)}</td><td>${esc(c.message)}</td></tr>`,
        )
        .join("")}</tbody></table>
<h3>Configuration differences from the baseline (recorded causes)</h3>${
        decision.differences.length
          ? `<ul>${decision.differences.map((d) => `<li><code>${esc(d.part)}</code> (${esc(d.kind)}): ${esc(String(d.baseline))} → ${esc(String(d.candidate))}</li>`).join("")}</ul>`
          : "<p>none: the same recorded configuration</p>"
      }
<h3>Per-item deltas</h3><p>${esc(
        Object.entries(decision.deltas.counts)
          .map(([k, n]) => `${k} ${n}`)
          .join(" · "),
      )}</p>${
        decision.deltas.unexplained.length
          ? `<ul>${decision.deltas.unexplained.map((d) => `<li class="bad">${esc(d.item)} ${esc(d.kind)}${d.key ? ` ${esc(d.key)}` : ""}: ${esc(String(d.baseline))} → ${esc(String(d.candidate))}</li>`).join("")}</ul>`
          : ""
      }</section>`
    : "";
}

function badges(run: LoadedRun): string {
  const sim = simProfileOf(run);
  const imported = run.manifest.config.suites[0] === "imported";
  return [
    sim ? `<span class="badge sim" id="sim-label" title="${esc(sim.description)}">SIMULATED · sim profile ${esc(sim.name)}</span>` : "",
    imported ? `<span class="badge imported">IMPORTED · recorded by another harness</span>` : "",
  ].join("");
}

function headerFacts(run: LoadedRun): string {
  const m = run.manifest;
  return esc(
    `run ${m.run_id} · ${m.state} · ${m.started_at} · planner ${modelLabel(m.roles.planner)} · critic ${modelLabel(m.roles.critic)} · ${m.plan.trials} trials/item · ${run.trials.length} trials`,
  );
}

const RENDER: Renderings<string> = {
  warnings: (s) => warningsPanel(s.warnings),
  decision: (s) => decisionPanel(s.decision),
  metrics: (s) =>
    `<section><h2>Headline metrics</h2>${metricTable(s.metrics, s.headline)}<details><summary>All ${s.names.length} metrics</summary>${metricTable(s.metrics, s.names)}</details></section>`,
  suites: (s) => `\n${suitesHtml(s.metrics)}`,
  expectations: (s) => expectationsPanel(s.expectations),
  headline: headlinePanel,
  operational: (s) => `\n<section><h2>Operational</h2>${metricTable(s.metrics, s.names)}</section>`,
  charts: (s) => charts(s.run, s.items),
  items: (s) => itemsView(s.details),
  item: () => `<section id="item-view"></section>`,
  transcript: () => TRANSCRIPT_VIEW,
  run: runPanel,
  checks: (s) => checksPanel(s.decision),
  // The Items tab lists every item, those whose trials disagree among them (its filter).
  unstable: () => null,
};

/** The tabs of report.html in their order, with their titles: each shows the model's sections placed on it. */
const VIEWS: { id: ReportSection["view"]; title: (model: ReportModel) => string }[] = [
  { id: "decision", title: ({ decision }) => (decision ? `Decision: ${decision.result.decision}` : "Overview") },
  { id: "metrics", title: () => "Metrics" },
  { id: "charts", title: () => "Charts" },
  { id: "items", title: ({ details }) => `Items (${details.length}; ${details.filter((d) => d.row.expectation === "fail").length} failed)` },
  { id: "item", title: () => "Item" },
  { id: "trial", title: () => "Transcript" },
  { id: "run", title: () => "Run" },
];

/** report.html: a decision first (the gate's, when a baseline is given), then metrics, charts, item triage and the run. */
export function renderHtml(model: ReportModel): string {
  const { run, details } = model;
  const rendered = renderSections(model.sections, RENDER);
  const views: View[] = VIEWS.map((v) => ({
    id: v.id,
    title: v.title(model),
    body: rendered
      .filter((r) => r.section.view === v.id)
      .map((r) => r.out)
      .join(""),
  }));
  return page({
    title: `fieldtest report ${run.manifest.run_id}`,
    heading: "fieldtest report",
    badges: badges(run),
    facts: headerFacts(run),
    views,
    data: `${jsonScript("item-data", details)}\n${jsonScript("transcript-data", transcriptChunks(run.trials, details))}`,
    script: `${SORT_SCRIPT}${TRANSCRIPT_SCRIPT}${ITEMS_SCRIPT}`,
  });
}
