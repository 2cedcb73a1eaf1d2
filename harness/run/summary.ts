import type { TrialRecord } from "../../src/formats/records.ts";
import type { WorkItem } from "./work.ts";

interface SummaryRow {
  /** A corpus category, or `boundary` for the fixtures. */
  group: string;
  items: number;
  trials: number;
  approved: number;
  escalated: number;
  error: number;
}

/** Approved / escalated / error per category (boundary fixtures form their own group). */
export function summarizeByCategory(records: readonly Pick<TrialRecord, "suite" | "item_id" | "status">[], items: readonly WorkItem[]): SummaryRow[] {
  const groupOf = new Map(items.map((it) => [`${it.suite}/${it.item_id}`, it.category ?? it.suite]));
  const rows = new Map<string, SummaryRow & { ids: Set<string> }>();
  for (const r of records) {
    const id = `${r.suite}/${r.item_id}`;
    const group = groupOf.get(id) ?? r.suite;
    const row = rows.get(group) ?? { group, items: 0, trials: 0, approved: 0, escalated: 0, error: 0, ids: new Set<string>() };
    row.ids.add(id);
    row.trials++;
    row[r.status]++;
    rows.set(group, row);
  }
  return [...rows.values()].map(({ ids, ...row }) => ({ ...row, items: ids.size })).sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
}

/** A fixed-width text table; the first column left-aligned, the rest right-aligned. */
export function formatTable(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [header, ...rows].map((r) => r.map(String));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: readonly string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(cells[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

export function formatSummary(rows: readonly SummaryRow[]): string {
  const total = rows.reduce(
    (t, r) => ({
      items: t.items + r.items,
      trials: t.trials + r.trials,
      approved: t.approved + r.approved,
      escalated: t.escalated + r.escalated,
      error: t.error + r.error,
    }),
    { items: 0, trials: 0, approved: 0, escalated: 0, error: 0 },
  );
  return formatTable(
    ["category", "items", "trials", "approved", "escalated", "error"],
    [...rows, { group: "total", ...total }].map((r) => [r.group, r.items, r.trials, r.approved, r.escalated, r.error]),
  );
}
