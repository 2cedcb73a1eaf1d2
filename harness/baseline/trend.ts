import { normalQuantile } from "../../src/stats/distributions.ts";
import { cusum, ewma, trailingWindowT } from "../../src/stats/drift.ts";
import type { Metric, Snapshot } from "./schema.ts";

export interface TrendPoint {
  run: string;
  value: number | null;
  /** (m_t − μ0)/σ0 against the fixed reference. */
  z: number | null;
  ewma: number | null;
  ewma_limit: number | null;
  cusum: number | null;
  cusum_limit: number | null;
  /** Trailing-window prediction statistic (the monitor, not the gate); null until W earlier runs. */
  trailing_t: number | null;
  trailing_threshold: number | null;
  alerts: ("ewma" | "cusum" | "trailing_t")[];
}

export interface MetricTrend {
  metric: string;
  /** The fixed reference: the baseline's value and standard error (or the first run's, without a baseline). */
  reference: { source: "baseline" | "first_run"; mu0: number | null; sigma0: number | null };
  /** Why the charts could not be drawn, when they could not. */
  note: string | null;
  points: TrendPoint[];
}

export interface TrendResult {
  window: number;
  /** The trailing-window caveat, stated once per report. */
  caveat: string;
  metrics: MetricTrend[];
  alerts: { metric: string; run: string; chart: string }[];
}

const Z95 = normalQuantile(0.975);

/** Summary metrics where a rise is good (agreement coefficients): their CUSUM watches for a drop. */
const HIGHER_IS_BETTER: ReadonlySet<string> = new Set(["critic_alpha_nominal", "critic_ac1"]);

/** A metric's standard error from its 95% interval (half-width / z; exact for t and normal intervals, approximate for Wilson). */
function standardError(m: Metric | undefined): number | null {
  if (!m || m.ci_low === null || m.ci_high === null) return null;
  return (m.ci_high - m.ci_low) / (2 * Z95);
}

function metricTrend(metric: string, runs: Snapshot[], reference: Snapshot, source: "baseline" | "first_run", W: number): MetricTrend {
  const mu0 = reference.metrics[metric]?.value ?? null;
  const sigma0 = standardError(reference.metrics[metric]);
  const values = runs.map((r) => r.metrics[metric]?.value ?? null);
  const known = values.filter((v): v is number => v !== null);
  const usable = mu0 !== null && sigma0 !== null && sigma0 > 0;
  const note =
    mu0 === null ? "the reference has no value" : !usable ? "the reference has no spread (σ0 = 0 or unknown): values are listed, not charted" : known.length < values.length ? "runs without a value are skipped by the charts" : null;
  const indexOfKnown = values.map((v, i) => (v === null ? -1 : i)).filter((i) => i >= 0);
  const z = usable ? known.map((v) => (v - mu0) / sigma0) : [];
  const e = usable ? ewma(z) : [];
  // One-sided CUSUM in the harmful direction: upward, or on the negated series for higher-is-better metrics.
  const sign = HIGHER_IS_BETTER.has(metric) ? -1 : 1;
  const c = usable ? cusum(known.map((v) => sign * v), { mu0: sign * mu0, sigma0 }) : [];
  const t = known.length > W ? trailingWindowT(known, W) : [];
  const points: TrendPoint[] = runs.map((r, i) => ({
    run: r.run_id ?? r.name,
    value: values[i] ?? null,
    z: null,
    ewma: null,
    ewma_limit: null,
    cusum: null,
    cusum_limit: null,
    trailing_t: null,
    trailing_threshold: null,
    alerts: [],
  }));
  indexOfKnown.forEach((runIndex, k) => {
    const p = points[runIndex]!;
    if (usable) {
      p.z = z[k]!;
      p.ewma = e[k]!.value;
      p.ewma_limit = e[k]!.limit;
      p.cusum = c[k]!.value;
      p.cusum_limit = c[k]!.limit;
      if (e[k]!.alert) p.alerts.push("ewma");
      if (c[k]!.alert) p.alerts.push("cusum");
    }
    const tp = t[k] ?? null;
    if (tp) {
      p.trailing_t = tp.T;
      p.trailing_threshold = tp.threshold;
      if (tp.alert) p.alerts.push("trailing_t");
    }
  });
  return { metric, reference: { source, mu0, sigma0 }, note, points };
}

/**
 * Drift over a history of runs, oldest first (methodology-notes §5, §9.8): for every summary
 * metric, per-family downgrade rates included, EWMA and a one-sided CUSUM in the harmful direction
 * (increases; decreases for the higher-is-better agreement coefficients α and AC1) on the values standardized
 * against a fixed reference (the published baseline, else the first run), and the
 * trailing-window prediction statistic as a monitor with its false-alarm caveat.
 */
export function trend(runs: Snapshot[], baseline: Snapshot | null, window = 5): TrendResult {
  const reference = baseline ?? runs[0];
  if (!reference) return { window, caveat: "", metrics: [], alerts: [] };
  const source = baseline ? "baseline" : "first_run";
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.metrics)))].sort();
  const metrics = names.map((m) => metricTrend(m, runs, reference, source, window));
  const caveat =
    `Trailing-window T uses the previous ${window} runs and the t threshold with ${window - 1} df; ` +
    `with fewer than 20 runs in the window the trailing mean and SD are themselves noisy and the window absorbs slow drift ` +
    `(a naive |z| > 3 rule would fire 5.2% of the time at W = 5, 1.9% at W = 10). It opens an investigation; only the gate against the fixed baseline decides a release.`;
  const alerts = metrics.flatMap((m) => m.points.flatMap((p) => p.alerts.map((chart) => ({ metric: m.metric, run: p.run, chart }))));
  return { window, caveat, metrics, alerts };
}
