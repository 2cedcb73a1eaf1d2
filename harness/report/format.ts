import type { MetricValue } from "../../src/metrics/types.ts";

/** A number for people: 3 significant digits, integers as they are; null is "n/a", never 0. */
export function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "n/a";
  if (Number.isInteger(x)) return String(x);
  return Math.abs(x) >= 1000 ? x.toFixed(0) : Number(x.toPrecision(3)).toString();
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
