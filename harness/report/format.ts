import type { RunSpend } from "../../src/formats/summary.ts";
import type { Direction } from "../../src/metrics/catalogue.ts";
import type { MetricValue } from "../../src/metrics/types.ts";
import { formatSpend } from "../run/budget.ts";
import type { Manifest } from "../../src/formats/manifest.ts";
import type { ForestRow } from "./decision.ts";
import { IMPORTED_SUITE } from "../../src/formats/run-config.ts";

/**
 * A role's model for people: `provider/model`, or the model alone when its name already starts
 * with the provider (an OpenAI-compatible router's `openai/gpt-4o-mini` is not "openai/openai/…").
 */
export function modelLabel(role: { provider: string; model: string }): string {
  return role.model.startsWith(`${role.provider}/`) ? role.model : `${role.provider}/${role.model}`;
}

/** A number for people: 3 significant digits, integers as they are; null is "n/a", never 0. */
export function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "n/a";
  if (Number.isInteger(x)) return String(x);
  return Math.abs(x) >= 1000 ? x.toFixed(0) : Number(x.toPrecision(3)).toString();
}

/** An arrow for tables: which way is better. */
export function directionMark(d: Direction): string {
  return d === "lower_is_better" ? "↓ lower is better" : d === "higher_is_better" ? "↑ higher is better" : "· no better direction";
}

/** `value [ci_low, ci_high]`, or the value alone when it has no interval. */
export function fmtMetric(m: MetricValue): string {
  if (m.value === null) return "n/a";
  return m.ci_low === null || m.ci_high === null ? fmt(m.value) : `${fmt(m.value)} [${fmt(m.ci_low)}, ${fmt(m.ci_high)}]`;
}

/** `escalated 4 · approved 1`: verdict counts for people, largest first. */
export function verdictText(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([v, n]) => `${v} ${n}`)
    .join(" · ");
}

export const SPEND_COLUMNS = ["session", "started", "outcome", "calls", "input tokens", "output tokens", "cost"];

/** What each session of the run spent (from the spend journal), then the run in all. */
export function spendRows(spend: RunSpend): string[][] {
  const row = (s: Omit<RunSpend, "sessions">, label: string[]) => [...label, String(s.calls), fmt(s.input_tokens), fmt(s.output_tokens), formatSpend(s)];
  return [...spend.sessions.map((s) => row(s, [s.id, s.started_at, s.outcome])), row(spend, ["run", "", ""])];
}

/** Says when the cost is not whole (the calls of unknown cost make it a lower bound), or not known at all. */
export function spendNote(spend: RunSpend | null): string {
  if (spend === null)
    return "The run has no spend journal (an imported run, or one recorded before fieldtest kept one): what it spent is unknown; its trials carry the cost of their calls where it is known.";
  return spend.cost_usd_is_lower_bound
    ? `The cost is a lower bound: ${spend.unknown_cost_calls} call(s) have unknown cost (no usage reported, a timeout or cut body the provider may have billed, or in flight at a crash).`
    : "Every call's cost is known.";
}

const cell = (s: string) => s.replace(/\|/g, "\\|");

/**
 * Text a run brought in (model names, ids, paths, messages, a goal's words) as inert Markdown:
 * shown as written, never markup. HTML is entity-escaped (a renderer passes raw HTML through),
 * Markdown punctuation is backslash-escaped, a line break becomes a space. `|` is left to table(),
 * which escapes it in cells. The one escaping function report.md and research.md share.
 */
export function mdText(text: string): string {
  return text
    .replace(/\r?\n|\r/g, " ")
    .replace(/[\\`*_{}[\]()#+!~]/g, "\\$&")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

/** A Markdown table; `|` inside a cell is escaped. */
export function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`)].join("\n");
}

/** Where a run's trials came from, when not from one sweep: shards merged, or another harness's logs. */
export function runOrigin(m: Manifest): string | null {
  if (m.config.suites[0] === IMPORTED_SUITE) return "imported: recorded by another harness, rescored by fieldtest's gates and normalizer";
  if (m.merged_from === null) return null;
  return `merged from ${m.merged_from.length} runs (${m.merged_from.map((r) => (r.shard ? `shard ${r.shard.index}/${r.shard.count}` : r.run_id)).join(", ")})`;
}

/**
 * Why a forest row has no 95% interval, or null when it has one: no value on one side, no
 * per-item values to pair, too few paired items, or paired differences with no spread.
 */
export function noInterval(r: ForestRow): string | null {
  if (r.delta === null) return `no value in ${r.baseline === null ? "the baseline" : "this run"}`;
  if (r.ci_low !== null && r.ci_high !== null) return null;
  if (!r.paired) return "no interval: no per-item values to pair";
  if (r.n_items < 2) return `no interval: ${r.n_items} paired item`;
  return "no interval: the paired differences have no spread";
}

/** A forest row's delta for people: "0.012 [-0.004, 0.028] paired over 74 items", or why it has no interval. */
export function forestDelta(r: ForestRow): string {
  const reason = noInterval(r);
  if (r.delta === null) return `n/a (${reason})`;
  const interval = reason === null ? ` [${fmt(r.ci_low)}, ${fmt(r.ci_high)}]` : "";
  return `${fmt(r.delta)}${interval} ${r.paired ? `paired over ${r.n_items} items` : "(not paired)"}${reason === null ? "" : `; ${reason}`}`;
}
