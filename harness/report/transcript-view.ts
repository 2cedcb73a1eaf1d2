/**
 * report.html's transcript of one trial (`#trial/<suite>/<item>/<trial>`): every round's plan as a
 * task table, its gate findings (and the ones set aside because they rest on a task a translation
 * invented, marked), the critic's normalized findings with their evidence status and its raw
 * answer, the blockers, the decision and its reason, and each call with its decision context.
 * The page decodes an item's transcripts (transcript.ts) the first time one of them opens. Every
 * text from the run goes through esc(): model text stays inert.
 */

export const TRANSCRIPT_VIEW = `<section id="trial-view"></section>`;

/** `#trial/...` for a trial, as the page's script builds it. */
export const trialHref = (itemKey: string, trial: number) => `#trial/${encodeURIComponent(`${itemKey}/${trial}`)}`;

export const TRANSCRIPT_SCRIPT = `
var TRANSCRIPTS = JSON.parse(document.getElementById("transcript-data").textContent);
var decoded = {};
function transcriptsOf(key) {
  if (!decoded[key]) {
    var bin = atob(TRANSCRIPTS[key]), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    decoded[key] = new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text().then(JSON.parse);
  }
  return decoded[key];
}
function trialHref(key, n) { return "#trial/" + encodeURIComponent(key + "/" + n); }
function names(xs) { return (xs || []).map(esc).join(", "); }
function hash(h) { return h === null || h === undefined ? "n/a" : "<code title=\\"" + esc(h) + "\\">" + esc(String(h).slice(0, 12)) + "</code>"; }
function planTable(plan, invented) {
  var columns = [
    ["task", function (t) { return "<code>" + esc(t.id) + "</code>" + (invented.indexOf(t.id) >= 0 ? " <span class=\\"tag\\" title=\\"invented by the translation from another engine's plan\\">translated</span>" : ""); }, true],
    ["kind", function (t) { return esc(t.kind); }, true],
    ["description", function (t) { return esc(t.description); }, true],
    ["target", function (t) { return esc(t.target || ""); }],
    ["risk / blast / reversibility", function (t) { return esc(t.risk) + " / " + esc(t.blast_radius) + " / " + esc(t.reversibility); }, true],
    ["group", function (t) { return esc(t.parallel_group || ""); }],
    ["preconditions (fact ← by)", function (t) { return t.preconditions.map(function (p) { return esc(p.fact) + (p.established_by ? " ← " + esc(p.established_by) : ""); }).join("<br>"); }],
    ["establishes", function (t) { return names(t.establishes); }],
    ["produces", function (t) { return names(t.produces); }],
    ["mutates", function (t) { return names(t.mutates); }],
    ["destroys", function (t) { return names(t.destroys); }],
    ["verifies", function (t) { return t.verifies ? esc(t.verifies.subject) + " of " + esc(t.verifies.task) + "; reads " + (t.verifies.reads.length ? names(t.verifies.reads) : "nothing") : ""; }],
    ["rollback", function (t) { return t.rollback ? "on " + esc(t.rollback.trigger) + ": " + esc(t.rollback.action) + (t.rollback.requires.length ? "; requires " + names(t.rollback.requires) : "") + (t.rollback.restores.length ? "; restores " + names(t.rollback.restores) : "") : ""; }],
    ["attributes", function (t) { return t.attributes ? esc(JSON.stringify(t.attributes)) : ""; }],
  ].filter(function (c) { return c[2] || plan.tasks.some(function (t) { return c[1](t) !== ""; }); });
  var rows = plan.tasks.map(function (t) {
    return "<tr data-task=\\"" + esc(t.id) + "\\"" + (invented.indexOf(t.id) >= 0 ? " class=\\"invented\\"" : "") + ">" + columns.map(function (c) { return "<td>" + c[1](t) + "</td>"; }).join("") + "</tr>";
  });
  var deps = plan.dependencies.map(function (d) { return esc(d.from) + " → " + esc(d.to) + (d.kind === "soft" ? " (soft)" : ""); });
  return "<p class=\\"muted\\">plan <code>" + esc(plan.id) + "</code> v" + esc(plan.version) + (plan.parent_id ? " from <code>" + esc(plan.parent_id) + "</code>" : "") + " · " + plan.tasks.length + " tasks · dependencies: " + (deps.length ? deps.join(", ") : "none") + " (columns every task leaves empty are left out)</p>" +
    "<div class=\\"scroll\\"><table class=\\"plan\\"><thead><tr>" + columns.map(function (c) { return "<th>" + esc(c[0]) + "</th>"; }).join("") + "</tr></thead><tbody>" + rows.join("") + "</tbody></table></div>";
}
function gateList(findings, blocking, cls) {
  return "<ul class=\\"" + cls + "\\">" + findings.map(function (f) {
    var blocks = blocking[f.key] === true;
    return "<li class=\\"gate-finding" + (blocks ? " blocks" : "") + "\\" data-code=\\"" + esc(f.code) + "\\" data-task=\\"" + esc(f.task_id || "") + "\\"><code>" + esc(f.code) + "</code> @" + esc(f.task_id || "plan") + " (" + esc(f.family) + (blocks ? ", BLOCKS" : "") + "): " + esc(f.message) + "</li>";
  }).join("") + "</ul>";
}
function criticBlock(c, blocking) {
  if (c === null) return "<p class=\\"muted\\">The critic did not run this round (its mode, or gate blockers first).</p>";
  var rows = c.findings.map(function (f) {
    var said = function (raw, now) { var s = typeof raw === "string" ? raw : JSON.stringify(raw); return s !== now ? " <span class=\\"muted\\">(said " + esc(s) + ")</span>" : ""; };
    var ev = f.evidence ? esc(f.evidence.claim) + (f.evidence.tasks.length ? " [" + names(f.evidence.tasks) + "]" : "") + (f.evidence.facts.length ? " facts " + names(f.evidence.facts) : "") : "none";
    var blocks = blocking[f.key] === true;
    return "<tr class=\\"critic-finding" + (blocks ? " blocks" : "") + "\\" data-evidence=\\"" + esc(f.evidence_status) + "\\"><td>" + esc(f.family) + said(f.raw.family, f.family) + "</td><td>" + esc(f.severity) + said(f.raw.severity, f.severity) + "</td><td>" + esc(f.task_id || "plan") +
      "</td><td>" + ev + "</td><td>" + esc(f.evidence_status) + "<br><span class=\\"muted\\">" + esc(f.evidence_reason) + "</span></td><td>" + names(f.normalization) + "</td><td>" + (blocks ? "BLOCKS" : "") + "</td><td>" + esc(f.message) + (f.suggested_fix ? "<br><span class=\\"muted\\">fix: " + esc(f.suggested_fix) + "</span>" : "") + "</td></tr>";
  });
  return "<p>critic: <b>" + esc(c.outcome) + "</b>" + (c.reason ? " (" + esc(c.reason) + ")" : "") + " · " + c.findings.length + " normalized finding(s)" + (c.malformed_findings ? " · " + c.malformed_findings + " malformed, dropped" : "") + "</p>" +
    (rows.length ? "<div class=\\"scroll\\"><table class=\\"findings\\"><thead><tr><th>family</th><th>severity</th><th>task</th><th>evidence claimed</th><th>evidence status</th><th>normalization</th><th>blocks</th><th>message</th></tr></thead><tbody>" + rows.join("") + "</tbody></table></div>" : "") +
    "<details class=\\"critic-raw\\"" + (c.outcome === "ok" ? "" : " open") + "><summary>the critic's raw answer</summary><pre>" + esc(c.raw_text === null ? "(no answer)" : c.raw_text) + "</pre></details>";
}
function callRows(calls) {
  return "<div class=\\"scroll\\"><table class=\\"calls\\"><thead><tr><th>role</th><th>attempt</th><th>outcome</th><th>latency</th><th>tokens in / out</th><th>cost</th><th>decision context</th><th>reported</th><th>answer</th></tr></thead><tbody>" + calls.map(function (c) {
    var x = c.context;
    var ctx = esc(x.provider) + " · " + esc(x.model) + (x.base_url ? " · " + esc(x.base_url) : "") + "<br>temperature " + fmt(x.temperature) + " · top_p " + fmt(x.top_p) + " · seed " + fmt(x.seed) + " · max_tokens " + fmt(x.max_tokens) + "<br>" + esc(x.response_format) + (x.sdk ? " · " + esc(x.sdk) + " " + esc(x.sdk_version || "") : "") +
      "<br>system " + hash(x.system_prompt_sha256) + " · template " + hash(x.user_template_sha256) + " · prompt " + hash(x.user_prompt_sha256) + " · schema " + hash(x.schema_sha256);
    var answer = c.outcome === "ok" ? "<span class=\\"muted\\">accepted (the round shows it)</span>" : c.raw_text === null ? "<span class=\\"muted\\">no answer</span>" : "<details><summary>rejected answer</summary><pre>" + esc(c.raw_text) + "</pre></details>";
    if (c.validation_error) answer += "<div class=\\"bad\\">" + esc(c.validation_error) + "</div>";
    if (c.messages) answer += "<details><summary>prompt (" + c.messages.length + " messages)</summary>" + c.messages.map(function (m) { return "<pre><b>" + esc(m.role) + "</b>: " + esc(m.content) + "</pre>"; }).join("") + "</details>";
    var sent = c.transport_attempts.length > 1 ? " · " + c.transport_attempts.length + " sends" : "";
    return "<tr class=\\"call\\" data-role=\\"" + esc(c.role) + "\\"><td>" + esc(c.role) + "</td><td>" + c.attempt + "</td><td class=\\"" + (c.outcome === "ok" ? "" : "bad") + "\\">" + esc(c.outcome) + (c.error_class ? " (" + esc(c.error_class) + ")" : "") + (c.http_status ? " HTTP " + c.http_status : "") + sent + (c.cached ? " · cached" : "") +
      "</td><td class=\\"num\\">" + fmt(c.latency_ms) + " ms</td><td class=\\"num\\">" + (c.usage ? c.usage.input_tokens + " / " + c.usage.output_tokens : "n/a") + "</td><td class=\\"num\\">" + (c.cost_usd === null ? "n/a" : "$" + c.cost_usd.toFixed(5)) + "</td><td>" + ctx + "</td><td>" + esc(c.reported.model || "n/a") + (c.model_mismatch ? " <span class=\\"bad\\">(" + esc(c.model_mismatch) + ")</span>" : "") + (c.reported.system_fingerprint ? "<br>" + esc(c.reported.system_fingerprint) : "") + "</td><td>" + answer + "</td></tr>";
  }).join("") + "</tbody></table></div>";
}
function roundBlock(r, calls) {
  var blocking = {};
  r.blocker_keys.forEach(function (k) { blocking[k] = true; });
  var tr = r.translated || { tasks: [], gate_findings: [] };
  var out = "<section class=\\"t-round\\" data-round=\\"" + r.index + "\\"><h3>Round " + r.index + ": <span class=\\"decision\\" data-decision=\\"" + esc(r.decision) + "\\">" + esc(r.decision) + "</span>" + (r.reason ? " <span class=\\"reason\\">(" + esc(r.reason) + ")</span>" : "") + "</h3>";
  out += planTable(r.plan, tr.tasks);
  out += "<h4>Gate findings</h4>" + (r.gate_findings.length ? gateList(r.gate_findings, blocking, "gate-findings") : "<p class=\\"muted\\">none</p>");
  if (tr.gate_findings.length) out += "<h4>Set aside: they rest on a task the translation invented, never a blocker</h4>" + gateList(tr.gate_findings, {}, "set-aside");
  if (r.repairs.length) out += "<h4>Repairs</h4><ul>" + r.repairs.map(function (n) { return "<li>" + esc(n.repair) + ": " + esc(n.message) + "</li>"; }).join("") + "</ul>";
  out += "<h4>Critic</h4>" + criticBlock(r.critic, blocking);
  if (r.carried_forward.length) out += "<p>carried forward from earlier rounds: " + r.carried_forward.map(function (f) { return "<code>" + esc(f.key) + "</code>"; }).join(" ") + "</p>";
  out += "<h4>Decision</h4><p>" + (r.blocker_keys.length ? r.blocker_keys.length + " blocker(s): " + r.blocker_keys.map(function (k) { return "<code>" + esc(k) + "</code>"; }).join(" ") : "no blocker") + " → <b>" + esc(r.decision) + "</b>" + (r.reason ? ", " + esc(r.reason) : "") + "</p>";
  if (calls.length) out += "<h4>Calls</h4>" + callRows(calls);
  return out + "</section>";
}
function transcriptHtml(key, list, at) {
  var t = list[at], r = t.record;
  var nav = function (i, label) { return i >= 0 && i < list.length ? "<a href=\\"" + trialHref(key, list[i].record.trial) + "\\">" + label + "</a>" : ""; };
  var out = "<p><a href=\\"#item/" + encodeURIComponent(key) + "\\">← " + esc(key) + "</a> " + nav(at - 1, "← previous trial") + " " + nav(at + 1, "next trial →") + "</p>";
  out += "<h2 data-trial=\\"" + esc(key + "/" + r.trial) + "\\">" + esc(key) + " · trial " + r.trial + ": " + esc(r.status) + (r.critic_verdict ? " (critic " + esc(r.critic_verdict) + ")" : "") + "</h2>";
  out += "<p>verdict " + esc(r.verdict) + (r.escalation_reasons.length ? " · reasons " + names(r.escalation_reasons) : "") + " · " + r.rounds.length + " round(s) · " + r.calls.length + " call(s) · " + fmt(r.latency_ms) + " ms · cost " + (r.cost_usd === null ? "n/a" : "$" + r.cost_usd.toFixed(4)) + " · started " + esc(r.started_at) + "</p>";
  if (r.error) out += "<p class=\\"bad\\">error: " + esc(r.error) + "</p>";
  if (t.failures.length) out += "<div class=\\"failures\\"><b>failed expectation checks</b><ul>" + t.failures.map(function (f) { return "<li class=\\"bad\\">" + esc(f) + "</li>"; }).join("") + "</ul></div>";
  if (r.conversion) out += "<details><summary>imported: " + r.conversion.notes.length + " conversion note(s)</summary><ul>" + r.conversion.notes.map(function (n) { return "<li><b>" + esc(n.kind) + "</b> " + esc(n.subject) + ": " + esc(n.detail) + "</li>"; }).join("") + "</ul></details>";
  r.rounds.forEach(function (round) { out += roundBlock(round, r.calls.filter(function (c) { return c.round === round.index; })); });
  var outside = r.calls.filter(function (c) { return c.round >= r.rounds.length; });
  if (outside.length) out += "<section class=\\"t-round\\"><h3>Calls that made no round (no valid plan came back)</h3>" + callRows(outside) + "</section>";
  return out;
}
routes.trial = function (arg) {
  var box = document.getElementById("trial-view"), slash = arg.lastIndexOf("/");
  var key = arg.slice(0, slash), n = Number(arg.slice(slash + 1));
  if (slash < 0 || !TRANSCRIPTS[key]) { box.innerHTML = "<p>Open a trial's transcript from an item on the <a href=\\"#items\\">Items</a> tab" + (arg ? " (no trial " + esc(arg) + ")" : "") + ".</p>"; return; }
  box.innerHTML = "<p class=\\"muted\\">reading the transcript…</p>";
  transcriptsOf(key).then(function (list) {
    var at = -1;
    list.forEach(function (t, i) { if (t.record.trial === n) at = i; });
    box.innerHTML = at < 0 ? "<p>" + esc(key) + " has no trial " + esc(n) + ".</p>" : transcriptHtml(key, list, at);
  }, function (e) { box.innerHTML = "<p class=\\"bad\\">The transcript could not be read: " + esc(e) + "</p>"; });
};
`;
