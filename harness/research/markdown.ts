import { fmt, mdText, table, verdictText } from "../report/format.ts";
import { runKey, short } from "./html.ts";
import type { Point, Research } from "./model.ts";

const pt = (p: Point) =>
  p.value === null ? "n/a" : p.ci_low !== null && p.ci_high !== null ? `${fmt(p.value)} [${fmt(p.ci_low)}, ${fmt(p.ci_high)}]` : fmt(p.value);

type Keys = readonly string[];

/** research.md: the same numbers as research.html, as tables. */
export function renderResearchMarkdown(r: Research): string {
  const keys = r.runs.map((_, i) => runKey(i));
  return [
    `# fieldtest research: ${r.runs.length} runs`,
    "",
    ...alarmsSection(r, keys),
    ...detectableSection(r),
    `Reference: ${r.reference}.`,
    "",
    ...runsSection(r, keys),
    ...promptsSection(r, keys),
    ...metricsSection(r, keys),
    ...criticSection(r, keys),
    ...costSection(r, keys),
    ...swapSection(r),
  ].join("\n");
}

function alarmsSection(r: Research, keys: Keys): string[] {
  return [
    "## Drift alarms",
    "",
    r.alarms.length
      ? table(
          ["metric", "family", "run", "value", "reference", "Δ", "z", "charts"],
          r.alarms.map((a) => [
            `\`${a.metric}\``,
            a.family,
            `${keys[a.run]} ${mdText(r.runs[a.run]!.label)}`,
            fmt(a.value),
            fmt(a.reference_mean),
            fmt(a.delta),
            fmt(a.z),
            a.charts.join(", "),
          ]),
        )
      : "No drift alarm.",
    "",
  ];
}

/** What the charts could catch of each headline rate: how large a shift "no alarm" rules out. */
function detectableSection(r: Research): string[] {
  const d = r.detectable;
  if (!d) return [];
  return [mdText(d.note), "", ...d.lines.map((l) => `- \`${l.metric}\` ${mdText(l.text)}`), "", ...(d.hint ? [mdText(d.hint), ""] : [])];
}

function runsSection(r: Research, keys: Keys): string[] {
  return [
    table(
      ["run", "name", "started", "critic", "critic prompt", "mode", "items", "trials", "calls"],
      r.runs.map((x, i) => [
        keys[i]!,
        mdText(x.label),
        mdText(x.started_at),
        mdText(x.critic),
        mdText(short(x.critic_prompt)),
        `${x.mode}, ≤ ${x.max_rounds} rounds`,
        String(x.items),
        String(x.trials),
        String(x.calls),
      ]),
    ),
    "",
  ];
}

function promptsSection(r: Research, keys: Keys): string[] {
  return [
    "## Critic prompt variants",
    "",
    table(
      ["critic prompt", "runs", "audits", "raw blockers", "advisory raw blockers", "per audit", "downgrade rate"],
      r.prompts.map((p) => [
        mdText(short(p.critic_prompt)),
        p.runs.map((l) => keys[r.runs.findIndex((x) => x.label === l)]).join(", "),
        String(p.audits),
        String(p.raw_blockers),
        String(p.advisory_raw_blockers),
        fmt(p.advisory_blockers_per_audit),
        fmt(p.downgrade_rate["downgrade_rate"]),
      ]),
    ),
    "",
  ];
}

function metricsSection(r: Research, keys: Keys): string[] {
  return [
    "## Headline metrics over runs",
    "",
    table(
      ["metric", ...keys, "reference μ0", "alarms"],
      r.metrics.map((m) => [
        `\`${m.metric}\``,
        ...m.points.map(pt),
        fmt(m.reference.mu0),
        m.points.flatMap((p, i) => (p.alerts.length ? [`${keys[i]} (${p.alerts.join(", ")})`] : [])).join("; ") || "none",
      ]),
    ),
    "",
    r.trend_caveat,
    "",
  ];
}

function criticSection(r: Research, keys: Keys): string[] {
  return [
    "## The critic over runs (every completed audit)",
    "",
    table(
      ["measure", ...keys],
      [
        ["audits", ...r.critic.audits.map(String)],
        ["advisory blockers per audit", ...r.critic.advisory_blockers_per_audit.map(pt)],
        ["unsupported evidence rate", ...r.critic.unsupported_evidence.map(pt)],
        ...Object.entries(r.critic.downgrade)
          .filter(([, v]) => v.some((p) => p.value !== null))
          .map(([k, v]) => [`\`${k}\``, ...v.map(pt)]),
        ...Object.entries(r.critic.evidence_status).map(([s, v]) => [`findings ${s}`, ...v.map(String)]),
      ],
    ),
    "",
  ];
}

function costSection(r: Research, keys: Keys): string[] {
  return [
    "## Cost and latency",
    "",
    table(
      ["measure", ...keys],
      [
        [
          "spend (USD; ≥: a lower bound, n/a: unknown)",
          ...r.operations.cost_usd.map((c, i) => (c !== null && r.operations.cost_is_lower_bound[i] ? `≥ ${fmt(c)}` : fmt(c))),
        ],
        ["trial latency p50 (ms)", ...r.operations.latency_ms_p50.map(fmt)],
        ["trial latency p95 (ms)", ...r.operations.latency_ms_p95.map(fmt)],
        ["calls per trial", ...r.operations.calls_per_trial.map(fmt)],
      ],
    ),
    "",
  ];
}

function swapSection(r: Research): string[] {
  const swap = r.swap;
  if (swap === null) return [];
  return [
    `## Model swap: A ${mdText(swap.a)} against B ${mdText(swap.b)}`,
    "",
    `Verdict: ${mdText(swap.comparison.verdict.line)}`,
    "",
    swap.comparison.differences.length
      ? swap.comparison.differences.map((d) => `- ${mdText(d.part)} (${d.kind}): ${mdText(String(d.baseline))} → ${mdText(String(d.candidate))}`).join("\n")
      : "No recorded configuration difference.",
    "",
    ...swap.comparison.suites.flatMap((s) => [
      `${s.suite}: ${s.n_items} paired items; transitions ${
        Object.entries(s.transitions)
          .map(([t, n]) => `${t} ${n}`)
          .join(", ") || "none"
      }; McNemar (${s.mcnemar.method}) b ${s.mcnemar.b}, c ${s.mcnemar.c}, p ${fmt(s.mcnemar.p)}`,
      "",
      ...(s.changed_items.length
        ? [
            table(
              ["item", "B", "A", "recorded causes"],
              s.changed_items.map((c) => [mdText(c.item), verdictText(c.b), verdictText(c.a), mdText(c.causes.join(", ")) || "none recorded"]),
            ),
            "",
          ]
        : []),
    ]),
  ];
}
