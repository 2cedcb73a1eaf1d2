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

/** The metrics to show first, in this order (DESIGN.md §10); the rest follow by name. */
export const HEADLINE_METRICS = [
  "label_flip_rate",
  "engine_flip_rate",
  "underclaim_approvals",
  "underclaim_approvals_majority",
  "critical_underclaims",
  "overclaim_rate",
  "family_migration_rate",
  "unsupported_evidence_rate",
  "evidence_drift_rate",
  "downgrade_rate",
  "injection_verdict_shift",
  "critic_unavailable_rate",
] as const;

/** Metric names: the headline ones first, then every other one alphabetically. */
export function orderedMetricNames(metrics: Record<string, unknown>): string[] {
  const head = HEADLINE_METRICS.filter((m) => m in metrics);
  const rest = Object.keys(metrics)
    .filter((m) => !(HEADLINE_METRICS as readonly string[]).includes(m))
    .sort();
  return [...head, ...rest];
}
