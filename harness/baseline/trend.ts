import { normalQuantile } from "../../src/stats/distributions.ts";
import { addObservation, cusumArl0, cusumLimit, cusumStep, EMPTY_STATS, predictionScore, sdOf, trailingWindowT, type RunningStats } from "../../src/stats/drift.ts";
import { InputError } from "../../src/formats/input-error.ts";
import { binomialUpperTail } from "../../src/stats/exact.ts";
import { holmByFamily } from "../../src/stats/multiplicity.ts";
import { describeSnapshot, type Snapshot } from "./schema.ts";

export type AlertChart = "shift" | "cusum" | "trailing";

/** What a run was judged against: the in-control runs before it (the baseline's, then earlier runs of the trend). */
export interface ReferenceState {
  n: number;
  mean: number | null;
  sd: number | null;
  /** Events over units of the reference runs (rates of events only), for the exact count test. */
  events: number | null;
  units: number | null;
}

export interface TrendPoint {
  run: string;
  value: number | null;
  reference: ReferenceState;
  /** How the run was tested against the reference: Student t prediction, the exact event test, or not at all. */
  test: "t" | "exact" | null;
  /** t prediction: (x − x̄)/(s √(1 + 1/n)); null for the exact test. */
  T: number | null;
  /** The run's normal score against the reference (N(0, 1) in control): the CUSUM's input. */
  z: number | null;
  /** Two-sided p of the shift test (one-sided for the exact test), and after Holm across metrics for this run. */
  p: number | null;
  p_holm: number | null;
  /** One-sided CUSUM on the normal scores, in the harmful direction. */
  cusum: number | null;
  /** Trailing window of the W runs before this one (a monitor): T, p, Holm p, and whether W ≥ 20. */
  trailing: { T: number; p: number; p_holm: number; reliable: boolean } | null;
  alerts: AlertChart[];
}

export interface MetricTrend {
  metric: string;
  /** The harmful direction the CUSUM watches. */
  worse: "up" | "down";
  /** Why some or all runs were not charted. */
  note: string | null;
  points: TrendPoint[];
  /** For a metric that alarmed: where its shift began (the CUSUM's change point or the first alarm), the first alarm, and how far the last run is. */
  episode: { since: number; first_alert: number; last_value: number | null; reference: ReferenceState; distance_sd: number | null; charts: AlertChart[] } | null;
}

export interface TrendOptions {
  /** Trailing window W (runs). */
  window: number;
  /** Family-wise false-alarm level per run of each chart family (shift tests, CUSUMs, trailing tests). */
  alpha: number;
  /** CUSUM reference value k (half the shift in SD units it is tuned to). */
  k: number;
  /** Chart only these metrics (default: every metric of the runs and the baseline). */
  metrics?: readonly string[];
}

export const DEFAULT_TREND_OPTIONS: TrendOptions = { window: 5, alpha: 0.005, k: 0.5 };

export interface TrendResult {
  runs: string[];
  reference: string;
  options: TrendOptions;
  /** The CUSUM decision interval h and the in-control run lengths it gives (per metric, and of the whole family). */
  cusum: { h: number; arl0_metric: number; arl0_family: number };
  metrics: MetricTrend[];
  alerts: { metric: string; run: string; index: number; chart: AlertChart }[];
  /** The charts and the false-alarm rate they hold, in one sentence for people. */
  caveat: string;
}

/** Summary metrics where a rise is good: their CUSUM watches for a drop. */
const HIGHER_IS_BETTER: ReadonlySet<string> = new Set(["critic_alpha_nominal", "critic_ac1", "injection_gate_identical"]);

interface Series {
  values: (number | null)[];
  numerators: (number | null)[];
  denominators: (number | null)[];
}

function seriesOf(metric: string, runs: readonly Snapshot[]): Series {
  const m = runs.map((r) => r.metrics[metric]);
  return { values: m.map((x) => x?.value ?? null), numerators: m.map((x) => x?.numerator ?? null), denominators: m.map((x) => x?.denominator ?? null) };
}

/** A metric's in-control reference while the trend runs: its values and, while every run has them, their event counts. */
interface Reference {
  stats: RunningStats;
  events: number | null;
  units: number | null;
}

function addToReference(ref: Reference, x: number, events: number | null, units: number | null): Reference {
  const counted = ref.stats.n === 0 || (ref.events !== null && ref.units !== null);
  return {
    stats: addObservation(ref.stats, x),
    events: counted && events !== null && units !== null ? (ref.events ?? 0) + events : null,
    units: counted && events !== null && units !== null ? (ref.units ?? 0) + units : null,
  };
}

function referenceFromBaseline(metric: string, baseline: Snapshot | null): Reference {
  let ref: Reference = { stats: EMPTY_STATS, events: null, units: null };
  const b = baseline?.between_runs[metric];
  if (!b) return ref;
  b.values.forEach((v, i) => {
    if (v !== null) ref = addToReference(ref, v, b.numerators[i] ?? null, b.denominators[i] ?? null);
  });
  return ref;
}

function state(ref: Reference): ReferenceState {
  return { n: ref.stats.n, mean: ref.stats.n ? ref.stats.mean : null, sd: sdOf(ref.stats), events: ref.events, units: ref.units };
}

/** Below this many events per run (or non-events, for a rate near 1) a rate is charted by its counts, not a normal t. */
const RARE_EVENTS = 5;

/**
 * The exact conditional test of a run's k events in n units against the reference's kRef in nRef
 * (methodology: Poisson counts over exposures): X ~ Binomial(k + kRef, n/(n + nRef)) under equal
 * rates. The p is one-sided (more events) when the reference saw none, two-sided otherwise; the
 * normal score is the mid-p one (discrete counts), 0 for a run with no event against none.
 */
function exactCountTest(k: number, n: number, kRef: number, nRef: number): { z: number; p: number } {
  const q = n / (n + nRef);
  const upper = binomialUpperTail(k, k + kRef, q);
  const lower = 1 - binomialUpperTail(k + 1, k + kRef, q);
  const p = kRef === 0 ? upper : Math.min(1, 2 * Math.min(upper, lower));
  const mid = upper - 0.5 * (upper - (1 - lower));
  return { z: k === 0 && kRef === 0 ? 0 : -normalQuantile(Math.min(1 - Number.EPSILON, Math.max(Number.MIN_VALUE, mid))), p };
}

/**
 * The shift test of one run against its reference. A rate with few events per run (fewer than
 * RARE_EVENTS on average in the reference, or few non-events for a rate near 1), or whose
 * reference has no spread, is judged by the exact test of its counts: a normal t on a reference
 * that saw one event in 25 runs would call a second event a 20-SD jump, and one that saw none has
 * no SD at all (0 → 0.5% can still alarm). Otherwise the t prediction when the reference has
 * spread; else none.
 */
function shiftTest(ref: Reference, x: number, events: number | null, units: number | null): { test: "t" | "exact"; T: number | null; z: number; p: number } | null {
  const counted = ref.events !== null && ref.units !== null && ref.units > 0 && events !== null && units !== null && units > 0;
  const t = predictionScore(ref.stats, x);
  if (counted) {
    const perRun = (c: number) => c / ref.stats.n;
    const nonEvents = perRun(ref.units! - ref.events!) < RARE_EVENTS && perRun(ref.events!) >= RARE_EVENTS;
    // Few events (or non-events), or a reference without spread: the counts decide.
    if (perRun(ref.events!) < RARE_EVENTS || nonEvents || t === null) {
      if (!nonEvents) return { test: "exact", T: null, ...exactCountTest(events!, units!, ref.events!, ref.units!) };
      const c = exactCountTest(units! - events!, units!, ref.units! - ref.events!, ref.units!);
      return { test: "exact", T: null, z: -c.z, p: c.p };
    }
  }
  return t ? { test: "t", T: t.T, z: t.z, p: t.p } : null;
}

/**
 * Drift over a history of runs, oldest first (DESIGN.md §11; methodology-notes §5, §9.8). Per
 * metric, each run is judged against an in-control reference estimated with its own uncertainty:
 * the baseline's runs (`between_runs`), then every earlier run of the trend that did not alarm on
 * that metric (a self-starting chart: with a one-run baseline, or none, the first runs of the
 * history become the reference). Three chart families, each held to `alpha` false alarms per run
 * across all metrics:
 *
 * - **shift**: the run's prediction t against the reference (t with n − 1 df, so a small
 *   reference widens the limits instead of raising false alarms); a reference with no spread at
 *   0 (or 1) is judged by the exact conditional test of the run's events against its zero;
 *   Holm across metrics per run;
 * - **cusum**: a one-sided CUSUM on the runs' normal scores in the harmful direction, its limit
 *   set so the in-control run length of the whole family is 1/alpha (Siegmund's approximation;
 *   the scores are N(0, 1) in control, so the run length holds whatever the reference size);
 * - **trailing**: the trailing-window t over the W runs before (a monitor that absorbs slow
 *   drift), Holm across metrics per run, flagged unreliable below W = 20.
 */
export function trend(runs: readonly Snapshot[], baseline: Snapshot | null, options: Partial<TrendOptions> = {}): TrendResult {
  const opts: TrendOptions = { ...DEFAULT_TREND_OPTIONS, ...options };
  const all = [...new Set([...runs.flatMap((r) => Object.keys(r.metrics)), ...Object.keys(baseline?.between_runs ?? {})])].sort();
  const unknown = opts.metrics?.find((n) => !all.includes(n));
  // A misspelt name would chart nothing and pass --fail-on-alert: bad input, not an empty trend.
  if (unknown !== undefined) throw new InputError("command line", "--metrics", `unknown metric "${unknown}": not in any run or the baseline`);
  const names = opts.metrics ? all.filter((n) => opts.metrics!.includes(n)) : all;
  refuseRepeatedRuns(runs, baseline);
  const arl0Family = 1 / opts.alpha;
  const series = names.map((n) => seriesOf(n, runs));
  // The CUSUM family is the charted metrics: those with a value in some run (at least two, so a
  // lone metric keeps the limit of a pair and the family's run length stays at least 1/alpha).
  const charted = series.filter((s) => s.values.some((v) => v !== null)).length;
  const h = cusumLimit(opts.k, Math.max(2, charted) * arl0Family);
  const trailing = series.map((s) => trailingWindowT(s.values, opts.window));
  const refs = names.map((n) => referenceFromBaseline(n, baseline));
  const sums = names.map(() => 0);
  const ids = runs.map((r, i) => `${i + 1}:${describeSnapshot(r)}`);
  const points: TrendPoint[][] = names.map(() => []);

  runs.forEach((_, t) => {
    const rows = names.map((_, j) => {
      const s = series[j]!;
      const x = s.values[t] ?? null;
      const reference = state(refs[j]!);
      const test = x === null ? null : shiftTest(refs[j]!, x, s.numerators[t] ?? null, s.denominators[t] ?? null);
      return { x, reference, test, windowed: trailing[j]![t] ?? null };
    });
    const shiftP = holmByFamily(rows.map((r) => r.test?.p ?? null));
    const trailP = holmByFamily(rows.map((r) => r.windowed?.p ?? null));
    rows.forEach((row, j) => {
      const sign = HIGHER_IS_BETTER.has(names[j]!) ? -1 : 1;
      const step = row.test ? cusumStep(sums[j]!, sign * row.test.z, { k: opts.k, h }) : null;
      if (step) sums[j] = step.value;
      const cusum = step?.value ?? null;
      const alerts: AlertChart[] = [];
      if (shiftP[j] !== null && shiftP[j]! <= opts.alpha) alerts.push("shift");
      if (step?.alert) alerts.push("cusum");
      if (trailP[j] !== null && trailP[j]! <= opts.alpha) alerts.push("trailing");
      points[j]!.push({
        run: ids[t]!,
        value: row.x,
        reference: row.reference,
        test: row.test?.test ?? null,
        T: row.test?.T ?? null,
        z: row.test?.z ?? null,
        p: row.test?.p ?? null,
        p_holm: shiftP[j] ?? null,
        cusum,
        trailing: row.windowed ? { T: row.windowed.T, p: row.windowed.p, p_holm: trailP[j]!, reliable: row.windowed.reliable } : null,
        alerts,
      });
      // An alarming run is out of control for this metric: it never enters the reference.
      const s = series[j]!;
      if (row.x !== null && alerts.length === 0) refs[j] = addToReference(refs[j]!, row.x, s.numerators[t] ?? null, s.denominators[t] ?? null);
    });
  });

  const metrics = names.map((metric, j): MetricTrend => {
    const pts = points[j]!;
    const charted = pts.filter((p) => p.test !== null).length;
    const valued = pts.filter((p) => p.value !== null).length;
    const note =
      valued === 0
        ? "no run has a value"
        : charted === 0
          ? "not charted: the reference has fewer than two runs with spread, and the metric has no event count to test exactly"
          : charted < valued
            ? `${valued - charted} run(s) with a value not charted (the reference had no spread yet)`
            : null;
    return { metric, worse: HIGHER_IS_BETTER.has(metric) ? "down" : "up", note, points: pts, episode: episodeOf(pts) };
  });
  return {
    runs: ids,
    reference: baseline ? `${describeSnapshot(baseline)}, then the in-control runs of this trend` : "self-starting: the in-control runs of this trend",
    options: opts,
    cusum: { h, arl0_metric: cusumArl0(opts.k, h), arl0_family: arl0Family },
    caveat:
      `shift (t prediction against the reference, exact count test for rates with few events; Holm across metrics), CUSUM (k ${opts.k}, h ${Number(h.toPrecision(3))}), ` +
      `trailing window W ${opts.window}${opts.window < 20 ? " (unreliable below 20)" : ""} (Holm); each family at ${opts.alpha} false alarms per run, a false alarm about once in ${Number(arl0Family.toPrecision(3))} runs per family. ` +
      "Alarms open an investigation; only the gate against the fixed baseline decides a release.",
    metrics,
    alerts: metrics.flatMap((m) => m.points.flatMap((p, index) => p.alerts.map((chart) => ({ metric: m.metric, run: p.run, index, chart })))),
  };
}

/**
 * The charts assume independent runs: a run given twice, or one the baseline already pools (it would
 * be judged against itself), is bad input naming it.
 */
function refuseRepeatedRuns(runs: readonly Snapshot[], baseline: Snapshot | null): void {
  const inBaseline = new Set(baseline?.runs.flatMap((r) => r.run_id ?? []) ?? []);
  const seen = new Set<string>();
  runs.forEach((snapshot, i) => {
    for (const id of snapshot.runs.flatMap((r) => r.run_id ?? [])) {
      if (inBaseline.has(id)) throw new InputError("command line", `RUNS[${i}]`, `run ${id} is one of the baseline's runs: it would be judged against itself`);
      if (seen.has(id)) throw new InputError("command line", `RUNS[${i}]`, `run ${id} is given twice: the charts assume independent runs`);
      seen.add(id);
    }
  });
}


/**
 * A metric's alarm episode: since when (the first alarm when one run jumped: a shift or trailing
 * alarm; for a shift that only the CUSUM saw accumulate, its change point, the run after its sum
 * last stood at 0), and how far the last run's value is from the reference the first alarm was
 * judged against, in reference SDs.
 */
function episodeOf(points: readonly TrendPoint[]): MetricTrend["episode"] {
  const first = points.findIndex((p) => p.alerts.length > 0);
  if (first < 0) return null;
  let since = first;
  if (points[first]!.alerts.every((a) => a === "cusum")) {
    while (since > 0 && (points[since - 1]!.cusum ?? 0) > 0) since--;
  }
  const reference = points[first]!.reference;
  const last = [...points].reverse().find((p) => p.value !== null);
  const lastValue = last?.value ?? null;
  const distance = lastValue !== null && reference.mean !== null && reference.sd !== null && reference.sd > 0 ? (lastValue - reference.mean) / reference.sd : null;
  const charts = [...new Set(points.flatMap((p) => p.alerts))];
  return { since, first_alert: first, last_value: lastValue, reference, distance_sd: distance, charts };
}
