import { normalQuantile } from "../../src/stats/distributions.ts";
import {
  clusterRunVariance,
  countDispersion,
  pairedShiftScore,
  predictionScore,
  referenceShiftScore,
  sdOf,
  statsOf,
  trailingWindowT,
  type RunningStats,
} from "../../src/stats/drift.ts";
import { InputError } from "../../src/formats/input-error.ts";
import { ROUNDING } from "../../src/metrics/estimate.ts";
import { binomialTails, hypergeometricTails, type CountTails } from "../../src/stats/exact.ts";
import { holmByFamily, holmTaroneByFamily, taroneTestable } from "../../src/stats/multiplicity.ts";
import { detectableShifts } from "../../src/stats/detectable.ts";
import { metricInfo } from "../../src/metrics/catalogue.ts";
import { metricDelta } from "./gate.ts";
import { isRatioMetric, pooledItems, ratioDelta } from "./paired.ts";
import type { GatePolicy } from "./policy.ts";
import { describeSnapshot, itemKey, type Snapshot, type SnapshotItem } from "../../src/formats/snapshot.ts";

type AlertChart = "shift" | "sustained" | "trailing";

/**
 * The pre-registered headline family (the metrics the release gate checks) and the exploratory
 * rest: Holm runs within each, so the exploratory metrics never dilute the headline's power.
 */
export type MetricFamily = "headline" | "exploratory";

/** The fixed in-control reference of one metric: the baseline's runs, or the history's first runs. */
interface ReferenceState {
  n: number;
  mean: number | null;
  sd: number | null;
  /** Events over units of the reference runs (rates of events only), for the exact count tests. */
  events: number | null;
  units: number | null;
  /**
   * Whether the reference runs' counts vary more than sampling explains (countDispersion: the p of
   * Pearson's X² on runs − 1 df); null without counts on two runs or more. Below 0.05 in a
   * baseline's runs a rate is not judged by Fisher's test of its counts, whose variance is
   * sampling's alone, but paired over the items, where the baseline's between-run variance enters.
   */
  dispersion_p: number | null;
}

/** How a run (or the mean of the last runs) was tested against the reference. */
interface TestResult {
  /**
   * Fisher's exact test of the counts (a rate over trials or items), the exact count test of a rate
   * with few events, paired over the items (per-item values or ratio counts), or the prediction t of
   * the values.
   */
  test: "fisher" | "exact" | "paired" | "t";
  /** Runs in the tested group (1 for the shift test). */
  runs: number;
  /** The group's value minus the reference's (paired over the items when test is paired; of the count rates for Fisher's test); null for the exact test. */
  delta: number | null;
  /** The test statistic (t); null for the count tests. */
  T: number | null;
  /** The normal score of the test (N(0, 1) in control): the size of the difference in the test's own SDs. */
  z: number;
  /** Two-sided p (one-sided, more events, for an exact test against a reference with no event: `one_sided`). */
  p: number;
  one_sided: boolean;
  /**
   * The smallest one-sided p the test's margins allow, for a rise and for a drop of the value (0
   * for the t tests; a count test with no event on either side can give only 1): a test that
   * cannot reach its family's level takes no share of α (Tarone).
   */
  attainable: { up: number; down: number };
  /** The SD of one run's value the test assumed (null for the exact test of few events). */
  sd_run: number | null;
  /**
   * After Holm within the metric's family for this run, of the p in the harmful direction for a
   * headline metric (one-sided), of p for an exploratory one, over the family's tests that can
   * reach `alpha` (Tarone); 1 for a test that cannot.
   */
  p_holm: number;
}

interface TrendPoint {
  run: string;
  value: number | null;
  /** One of the reference runs (without a baseline, the first k of the history): the reference, never judged. */
  reference_run: boolean;
  /** This run against the reference. */
  shift: TestResult | null;
  /** The mean of the last runs since the reference (2 up to `sustain`, this one included) against it. */
  sustained: TestResult | null;
  /** Trailing window of the W runs before this one (a monitor): T, p, Holm p, and whether W ≥ 20. */
  trailing: { T: number; p: number; p_holm: number; reliable: boolean } | null;
  alerts: AlertChart[];
}

/**
 * What the charts could catch of a headline rate judged by Fisher's test of its counts (a rate over
 * trials or items): the smallest harmful shift that one run, and the mean of `sustain` runs,
 * detect with power 0.5 and 0.95 against this reference (countTestPower: exact, the run's and
 * the reference's counts both binomial at the reference's rate, the run's shifted).
 */
export interface Detectable {
  /**
   * The one-sided level a test alarms at first: alpha over the headline tests sharing it
   * (Tarone) on the shift chart at the last judged run, or over the headline family's size
   * when no run was judged.
   */
  level: number;
  /** What alpha is divided by. */
  tests: number;
  /** The reference's rate (its events over its units) and its units. */
  p0: number;
  reference_units: number;
  /** One run's units: the history's last run's. */
  run_units: number;
  worse: "up" | "down";
  /** 1 run (the shift chart), then `sustain` runs (the sustained chart); a shift is null where no rate in [0, 1] reaches that power. */
  by: { runs: number; at_power_50: number | null; at_power_95: number | null }[];
}

export interface MetricTrend {
  metric: string;
  family: MetricFamily;
  /** The harmful direction (the metric catalogue's); `either` for a metric with no better direction. */
  worse: "up" | "down" | "either";
  reference: ReferenceState;
  /** Why some or all runs were not tested. */
  note: string | null;
  points: TrendPoint[];
  /** The smallest shifts the charts catch (a headline rate judged by Fisher's test); null for every other metric and test. */
  detectable: Detectable | null;
  /** For a metric that alarmed: where its shift began (the first alarm, or the first run of an alarming window), the first alarm, and how far the last run is. */
  episode: { since: number; first_alert: number; last_value: number | null; distance_sd: number | null; charts: AlertChart[] } | null;
}

interface TrendOptions {
  /** Trailing window W (runs). */
  window: number;
  /** Family-wise false-alarm level per run of each chart, within each metric family. */
  alpha: number;
  /** Without a baseline: the first k runs of the history are the reference (pre-registered). */
  referenceRuns: number;
  /** The sustained chart tests the mean of the last 2 up to this many runs since the reference. */
  sustain: number;
  /** The headline family (pre-registered: the gate policy's metrics); every other metric is exploratory. */
  headline: readonly string[];
  /** Chart only these metrics (default: every metric of the runs and the baseline). */
  metrics?: readonly string[];
}

export const DEFAULT_TREND_OPTIONS: TrendOptions = { window: 5, alpha: 0.005, referenceRuns: 3, sustain: 3, headline: [] };

interface TrendAlert {
  metric: string;
  family: MetricFamily;
  run: string;
  index: number;
  chart: AlertChart;
  value: number | null;
  reference_mean: number | null;
  /** What alarmed: the tested difference and its normal score (trailing: its t). */
  delta: number | null;
  z: number | null;
}

export interface TrendResult {
  runs: string[];
  /** What every run is judged against, fixed: a shift cannot pollute it. */
  reference: { source: "baseline" | "first_runs"; runs: number; description: string };
  options: TrendOptions;
  families: Record<MetricFamily, string[]>;
  metrics: MetricTrend[];
  alerts: TrendAlert[];
  /** The charts and the false-alarm rate they hold, in one sentence for people. */
  caveat: string;
}

/** The metrics a gate policy checks (floors and margins), once each, in the policy's order: the pre-registered headline family. */
export function headlineFamily(policy: Pick<GatePolicy, "floors" | "non_inferiority">): string[] {
  return [...new Set([...policy.floors.map((f) => f.metric), ...policy.non_inferiority.map((m) => m.metric)])];
}

function worseOf(metric: string): MetricTrend["worse"] {
  const d = metricInfo(metric).direction;
  return d === "lower_is_better" ? "up" : d === "higher_is_better" ? "down" : "either";
}

/**
 * A metric's reference: the values, and while every run has them, the event counts of the
 * reference runs and their dispersion. `excess`: a baseline's runs whose counts vary beyond
 * sampling (OVERDISPERSED), so its rates are not judged by their counts alone.
 */
interface Reference {
  stats: RunningStats;
  events: number | null;
  units: number | null;
  dispersion: ReturnType<typeof countDispersion>;
  excess: boolean;
}

function referenceOf(
  values: readonly (number | null)[],
  numerators: readonly (number | null)[],
  denominators: readonly (number | null)[],
  isBaseline: boolean,
): Reference {
  const known = values.map((v, i) => ({ v, k: numerators[i] ?? null, u: denominators[i] ?? null })).filter((x) => x.v !== null);
  const counted = known.length > 0 && known.every((x) => x.k !== null && x.u !== null);
  const dispersion = counted ? countDispersion(known.map((x) => ({ events: x.k!, units: x.u! }))) : null;
  return {
    stats: statsOf(known.map((x) => x.v!)),
    events: counted ? known.reduce((s, x) => s + x.k!, 0) : null,
    units: counted ? known.reduce((s, x) => s + x.u!, 0) : null,
    dispersion,
    excess: isBaseline && dispersion !== null && dispersion.p < OVERDISPERSED,
  };
}

function state(ref: Reference): ReferenceState {
  return {
    n: ref.stats.n,
    mean: ref.stats.n ? ref.stats.mean : null,
    sd: sdOf(ref.stats),
    events: ref.events,
    units: ref.units,
    dispersion_p: ref.dispersion?.p ?? null,
  };
}

/** Below this many events per run (or non-events, for a rate near 1) a rate is tested by its counts as Poisson counts. */
const RARE_EVENTS = 5;

/**
 * A baseline's runs whose counts vary beyond sampling at this level (countDispersion) carry a
 * between-run excess Fisher's test would miss. The first k runs of a history are too few to show
 * one (k − 1 df; at k = 3 a chance excess in the reference turned a `high-miss` run's test away
 * from its counts), and no test here would carry it: the paired test's variance from them leaves
 * out what all items share.
 */
const OVERDISPERSED = 0.05;

/**
 * A count test's two-sided p (one-sided, more events, when `oneSided`), its mid-p normal score
 * (discrete counts; 0 for no event against none) and its attainable tails.
 */
function countResult(t: CountTails, oneSided: boolean): Pick<TestResult, "z" | "p" | "one_sided" | "attainable"> {
  const mid = t.upper - 0.5 * (t.upper + t.lower - 1);
  return {
    z: -normalQuantile(Math.min(1 - Number.EPSILON, Math.max(Number.MIN_VALUE, mid))),
    p: oneSided ? t.upper : Math.min(1, 2 * Math.min(t.upper, t.lower)),
    one_sided: oneSided,
    attainable: { up: t.minUpper, down: t.minLower },
  };
}

/** One side of a test: the reference, or a group of the history's runs. */
interface Side {
  snapshot: Snapshot;
  value: number | null;
  events: number | null;
  units: number | null;
  runs: number;
}

/**
 * Which count test judges a rate against its reference (groupTest): the exact test of its
 * non-events (a rate near 1) or of its events (few per run), else Fisher's test of its counts;
 * null without the reference's counts, for a ratio of sums (the snapshots' items carry its
 * counts) and for a baseline whose runs vary beyond sampling.
 */
function countTestOf(metric: string, ref: Reference, snapshots: readonly Snapshot[]): "non_events" | "exact" | "fisher" | null {
  if (ref.events === null || ref.units === null || !(ref.units > 0)) return null;
  const perRun = (c: number) => c / ref.stats.n;
  if (perRun(ref.units - ref.events) < RARE_EVENTS && perRun(ref.events) >= RARE_EVENTS) return "non_events";
  if (perRun(ref.events) < RARE_EVENTS) return "exact";
  const ratio = snapshots.some((s) => s.items.some((i) => metric in i.ratios));
  return ratio || ref.excess ? null : "fisher";
}

/** A t test can give any p. */
const CONTINUOUS = { up: 0, down: 0 };

/**
 * A group of runs (the mean of their values, their counts summed, their items pooled) against the
 * reference, by the first test that applies:
 *
 * - a rate with few events per run (or few non-events), by the exact conditional test of its
 *   counts as Poisson counts over their units (X ~ Binomial(k + k_ref, u/(u + u_ref))): a normal t
 *   on a reference that saw one event in 25 runs would call a second one a 20-SD jump, and one
 *   that saw none has no SD at all;
 * - a rate over trials or items (each unit has the event or not: not a ratio of sums), by
 *   Fisher's exact test of its counts (hypergeometricTails), unless a baseline's runs vary beyond
 *   sampling (OVERDISPERSED). Its variance is the binomial one at the pooled rate, which every unit
 *   of the run and the reference measures where a between-run SD has k − 1 df (2 at k = 3), and
 *   for fixed items an upper bound;
 * - paired over the items when both sides have per-item values (or counts, for a ratio) on two
 *   clusters or more (the sampling variance the group's items measure, or when larger the
 *   reference runs' own: cluster by cluster without a baseline, referenceShiftScore; the
 *   baseline's between-run variance, pairedShiftScore);
 * - the prediction t of the values on the reference runs' spread; else no test.
 */
function groupTest(
  metric: string,
  ref: Reference,
  refSnapshot: Snapshot,
  runVariance: { variance: number; df: number } | null,
  group: Side,
): Omit<TestResult, "p_holm"> | null {
  const x = group.value;
  if (x === null) return null;
  const j = group.runs;
  const { events, units } = group;
  const counts = events !== null && units !== null && units > 0 ? countTestOf(metric, ref, [group.snapshot, refSnapshot]) : null;
  if (counts !== null && ref.events !== null && ref.units !== null && events !== null && units !== null) {
    const q = units / (units + ref.units);
    if (counts === "non_events") {
      // A rate near 1 is tested on its non-events: a rise of the rate is a drop of them.
      const c = countResult(binomialTails(units - events, units - events + ref.units - ref.events, q), false);
      return { test: "exact", runs: j, delta: null, T: null, ...c, z: -c.z, attainable: { up: c.attainable.down, down: c.attainable.up }, sd_run: null };
    }
    if (counts === "exact")
      return { test: "exact", runs: j, delta: null, T: null, ...countResult(binomialTails(events, events + ref.events, q), ref.events === 0), sd_run: null };
    const pooled = (events + ref.events) / (units + ref.units);
    return {
      test: "fisher",
      runs: j,
      delta: events / units - ref.events / ref.units,
      T: null,
      ...countResult(hypergeometricTails(events, units, ref.events, ref.units), false),
      sd_run: Math.sqrt((pooled * (1 - pooled)) / (units / j)),
    };
  }
  const paired = isRatioMetric(metric, group.snapshot, refSnapshot)
    ? ratioDelta(metric, group.snapshot, refSnapshot)
    : metricDelta(metric, refSnapshot, group.snapshot);
  // Spread below rounding is none: items that all moved alike leave an SE of 1e-17, not 0.
  const se = paired && paired.se !== null && paired.clusters >= 2 ? { se: paired.se < ROUNDING ? 0 : paired.se, df: paired.clusters - 1 } : null;
  // With the reference's own runs at hand, one run's variance comes from them (clusterRunVariance)
  // and from the group's items, the more conservative kept; against a baseline, from the items or
  // the baseline's between-run SD.
  const score = !paired
    ? null
    : runVariance
      ? referenceShiftScore(paired.mean, runVariance, j, ref.stats.n, se)
      : se
        ? pairedShiftScore(paired.mean, se.se, se.df, j, ref.stats)
        : null;
  if (score)
    return { test: "paired", runs: j, delta: paired!.mean, T: score.T, z: score.z, p: score.p, one_sided: false, attainable: CONTINUOUS, sd_run: score.sd };
  const t = predictionScore(ref.stats, x, j);
  return t ? { test: "t", runs: j, delta: x - ref.stats.mean, T: t.T, z: t.z, p: t.p, one_sided: false, attainable: CONTINUOUS, sd_run: t.sd } : null;
}

/**
 * One run's variance of a metric at fixed items, from the reference runs cluster by cluster
 * (clusterRunVariance) over the items every reference run has: their per-item values, or for a
 * ratio their counts linearized at the pooled ratio. null below two runs.
 */
function runVarianceOf(metric: string, runs: readonly Snapshot[]): { variance: number; df: number } | null {
  if (runs.length < 2) return null;
  const ratio = isRatioMetric(metric, ...runs);
  const maps = runs.map((r) => new Map(r.items.map((i) => [itemKey(i), i])));
  const rows = runs[0]!.items.flatMap((item) => {
    const all = maps.map((m) => m.get(itemKey(item)));
    const ok = all.every(
      (o) => o !== undefined && o.item_hash === item.item_hash && (ratio ? metric in o.ratios : o.values[metric] !== null && o.values[metric] !== undefined),
    );
    return ok ? [{ cluster: item.cluster, runs: all as SnapshotItem[] }] : [];
  });
  if (rows.length === 0) return null;
  const n = rows.length;
  let unit: (i: SnapshotItem, r: number) => number = (i) => i.values[metric]!;
  if (ratio) {
    const den = runs.map((_, r) => rows.reduce((s, row) => s + row.runs[r]!.ratios[metric]!.den, 0));
    const num = runs.map((_, r) => rows.reduce((s, row) => s + row.runs[r]!.ratios[metric]!.num, 0));
    const meanDen = den.reduce((a, b) => a + b, 0) / runs.length;
    const pooled = num.reduce((a, b) => a + b, 0) / (meanDen * runs.length);
    if (!(meanDen > 0)) return null;
    // The ratio of run r is ≈ pooled + Σ_i (num − pooled · den)/meanDen: a mean over items of n times that.
    unit = (i) => (n * (i.ratios[metric]!.num - pooled * i.ratios[metric]!.den)) / meanDen;
  }
  const sums = new Map<string, number[]>();
  for (const row of rows) {
    const at = sums.get(row.cluster) ?? runs.map(() => 0);
    row.runs.forEach((i, r) => (at[r]! += unit(i, r)));
    sums.set(row.cluster, at);
  }
  return clusterRunVariance([...sums.values()], n);
}

/**
 * The p a test enters its family with, and the smallest its margins allow: for a headline metric
 * the one-sided p in the harmful direction (from the two-sided p and the sign of the score), the
 * two-sided p otherwise and when no direction is worse.
 */
function familyTest(r: Omit<TestResult, "p_holm">, worse: MetricTrend["worse"]): { p: number; minP: number } {
  const { up, down } = r.attainable;
  // An exact test against a reference with no event is one-sided already (more events).
  if (r.one_sided) return worse === "down" ? { p: 1, minP: 1 } : { p: r.p, minP: up };
  if (worse === "either") return { p: r.p, minP: Math.min(1, 2 * Math.min(up, down)) };
  const harmful = worse === "up" ? r.z > 0 : r.z < 0;
  return { p: harmful ? r.p / 2 : 1 - r.p / 2, minP: worse === "up" ? up : down };
}

function sideOf(runs: readonly Snapshot[], pooled: Snapshot, metric: string): Side {
  const m = runs.map((r) => r.metrics[metric]);
  const known = m.filter((x) => x !== undefined && x.value !== null);
  const counted = known.length === runs.length && known.every((x) => x!.numerator !== undefined && x!.denominator !== undefined);
  return {
    snapshot: pooled,
    value: known.length === runs.length ? known.reduce((s, x) => s + x!.value!, 0) / known.length : null,
    events: counted ? known.reduce((s, x) => s + x!.numerator!, 0) : null,
    units: counted ? known.reduce((s, x) => s + x!.denominator!, 0) : null,
    runs: runs.length,
  };
}

/**
 * Drift over a history of runs, oldest first (docs/design.md §11; methodology-notes §5, §9.8). Every
 * run is judged against a **fixed** in-control reference that a shift cannot pollute: the
 * baseline's runs when one is given, otherwise the history's first `referenceRuns` runs
 * (pre-registered; they are the reference and are not judged). Three charts, each held per run to
 * `alpha` false alarms within each metric family (Holm within the pre-registered headline family,
 * the gate policy's metrics, and within the exploratory rest, over the tests whose margins let
 * them reach `alpha`: Tarone):
 *
 * - **shift**: the run against the reference (groupTest: Fisher's exact test of the counts of a
 *   rate over trials or items, the exact count test for rates with few events, paired over the
 *   items, else the prediction t);
 * - **sustained**: the mean of the last 2 up to `sustain` runs since the reference against it (a
 *   shift too small for one run shows in the mean of a few, at (1/j + 1/k) the variance);
 * - **trailing**: the run against the W runs before it (a monitor that absorbs slow drift),
 *   flagged unreliable below W = 20.
 */
export function trend(runs: readonly Snapshot[], baseline: Snapshot | null, options: Partial<TrendOptions> = {}): TrendResult {
  const opts: TrendOptions = { ...DEFAULT_TREND_OPTIONS, ...options };
  if (!(Number.isInteger(opts.referenceRuns) && opts.referenceRuns >= 2))
    throw new InputError("command line", "--reference-runs", "at least 2 runs: a reference needs a spread");
  const names = chartedMetrics(runs, baseline, opts.metrics);
  refuseRepeatedRuns(runs, baseline);
  const familyOf = (metric: string): MetricFamily => (opts.headline.includes(metric) ? "headline" : "exploratory");
  // The headline family is pre-registered with its harmful directions (the gate's regressions are
  // one-sided): a headline metric alarms when it got worse; the exploratory rest either way.
  const familyP = (r: Omit<TestResult, "p_holm">, metric: string) => familyTest(r, familyOf(metric) === "headline" ? worseOf(metric) : "either");
  const ids = runs.map((r, i) => `${i + 1}:${describeSnapshot(r)}`);
  const first = baseline ? 0 : Math.min(opts.referenceRuns, runs.length);
  const refRuns = runs.slice(0, first);
  const refSnapshot = baseline ?? (refRuns.length ? pooledItems(refRuns, "reference") : null);

  const refs = names.map((metric) => referenceFor(metric, baseline, refRuns));
  const runVariances = names.map((metric) => (baseline ? null : runVarianceOf(metric, refRuns)));
  const trailing = names.map((n) =>
    trailingWindowT(
      runs.map((r) => r.metrics[n]?.value ?? null),
      opts.window,
    ),
  );
  const points: TrendPoint[][] = names.map(() => []);
  // The headline tests that share α on the shift chart at the last judged run (Tarone).
  let sharing: number | null = null;

  runs.forEach((run, t) => {
    const judged = t >= first && refSnapshot !== null;
    const j = Math.min(opts.sustain, t - first + 1);
    const windowRuns = runs.slice(t - j + 1, t + 1);
    const windowItems = judged && j >= 2 ? pooledItems(windowRuns, `${ids[t]!} and the ${j - 1} before`) : null;
    const rows = names.map((metric, m) => {
      if (!judged) return { shift: null, sustained: null, windowed: trailing[m]![t] ?? null };
      const shift = groupTest(metric, refs[m]!, refSnapshot, runVariances[m]!, sideOf([run], run, metric));
      const sustained = windowItems ? groupTest(metric, refs[m]!, refSnapshot, runVariances[m]!, sideOf(windowRuns, windowItems, metric)) : null;
      return { shift, sustained, windowed: trailing[m]![t] ?? null };
    });
    const family = (m: number) => familyOf(names[m]!);
    // A count test that cannot reach its family's level takes no share of α (Tarone).
    const holm = (pick: (r: (typeof rows)[number]) => Omit<TestResult, "p_holm"> | null) => {
      const tests = rows.map((r, m) => (pick(r) ? familyP(pick(r)!, names[m]!) : null));
      return holmTaroneByFamily(
        tests.map((x) => x?.p ?? null),
        tests.map((x) => x?.minP ?? 1),
        opts.alpha,
        family,
      );
    };
    const shiftP = holm((r) => r.shift);
    if (judged)
      sharing = taroneTestable(
        rows.flatMap((r, m) => (r.shift && family(m) === "headline" ? [familyP(r.shift, names[m]!).minP] : [])),
        opts.alpha,
      ).filter(Boolean).length;
    const sustainedP = holm((r) => r.sustained);
    const trailP = holmByFamily(
      rows.map((r) => r.windowed?.p ?? null),
      family,
    );
    rows.forEach((row, m) => {
      const alerts: AlertChart[] = [];
      if (shiftP[m] !== null && shiftP[m]! <= opts.alpha) alerts.push("shift");
      if (sustainedP[m] !== null && sustainedP[m]! <= opts.alpha) alerts.push("sustained");
      // Below W = 20 the trailing window is a monitor: one odd run in a short window makes its t jump.
      if (trailP[m] !== null && trailP[m]! <= opts.alpha && row.windowed!.reliable) alerts.push("trailing");
      points[m]!.push({
        run: ids[t]!,
        value: run.metrics[names[m]!]?.value ?? null,
        reference_run: !baseline && t < first,
        shift: row.shift ? { ...row.shift, p_holm: shiftP[m]! } : null,
        sustained: row.sustained ? { ...row.sustained, p_holm: sustainedP[m]! } : null,
        trailing: row.windowed ? { T: row.windowed.T, p: row.windowed.p, p_holm: trailP[m]!, reliable: row.windowed.reliable } : null,
        alerts,
      });
    });
  });

  const headlineCount = names.filter((n) => familyOf(n) === "headline").length;
  const tests = Math.max(1, sharing ?? headlineCount);
  const metrics = names.map((metric, m): MetricTrend => {
    const pts = points[m]!;
    return {
      metric,
      family: familyOf(metric),
      worse: worseOf(metric),
      reference: state(refs[m]!),
      note: untestedNote(pts, first),
      points: pts,
      detectable:
        familyOf(metric) === "headline" && refSnapshot
          ? detectableOf(metric, refs[m]!, refSnapshot, runs, { level: opts.alpha / tests, tests, sustain: opts.sustain })
          : null,
      episode: episodeOf(pts, refs[m]!),
    };
  });
  const reference = referenceSource(baseline, first, opts.referenceRuns);
  return {
    runs: ids,
    reference,
    options: opts,
    families: { headline: names.filter((n) => familyOf(n) === "headline"), exploratory: names.filter((n) => familyOf(n) === "exploratory") },
    caveat: caveatOf(reference, opts, headlineCount),
    metrics,
    alerts: alertsOf(metrics),
  };
}

/**
 * The smallest harmful shifts of a rate judged by Fisher's test of its counts that one run and the
 * mean of `sustain` runs catch with power 0.5 and 0.95 (detectableShifts), one run's units being
 * the history's last run's; null for any other test and for a metric with no better direction.
 */
function detectableOf(
  metric: string,
  ref: Reference,
  refSnapshot: Snapshot,
  runs: readonly Snapshot[],
  at: { level: number; tests: number; sustain: number },
): Detectable | null {
  const worse = worseOf(metric);
  const last = [...runs].reverse().find((r) => r.metrics[metric]?.denominator !== undefined);
  const units = last?.metrics[metric]?.denominator;
  if (
    worse === "either" ||
    !last ||
    units === undefined ||
    !(Number.isInteger(units) && units > 0) ||
    countTestOf(metric, ref, [refSnapshot, last]) !== "fisher"
  )
    return null;
  const p0 = ref.events! / ref.units!;
  const by = [...new Set([1, at.sustain])].map((j) => {
    const [half, most] = detectableShifts({ p0, referenceUnits: ref.units!, runUnits: units, runs: j, level: at.level, direction: worse }, [0.5, 0.95]);
    return { runs: j, at_power_50: half ?? null, at_power_95: most ?? null };
  });
  return { level: at.level, tests: at.tests, p0, reference_units: ref.units!, run_units: units, worse, by };
}

/** The detectable shifts of a trend's headline rates, for people: what they rest on, one line per rate, and what narrows them. */
export interface DetectableSummary {
  note: string;
  /** `0.134: a rise of 0.082 is caught by 3 runs in half the cases, 0.128 in 95% (by 1 run: 0.119, 0.188)`. */
  lines: { metric: string; text: string }[];
  /** Without a baseline: that one (or more reference runs) narrows them; null with one. */
  hint: string | null;
}

/** The detectable lines of a trend's rates that have them, or null when none does. */
export function detectableSummary(t: Pick<TrendResult, "metrics" | "reference">): DetectableSummary | null {
  const rated = t.metrics.filter((m) => m.detectable !== null);
  const d = rated[0]?.detectable;
  if (!d) return null;
  const runsOf = (j: number) => `${j} run${j === 1 ? "" : "s"}`;
  const shift = (x: number | null) => (x === null ? "none" : x.toFixed(3));
  const text = ({ p0, worse, by }: Detectable) => {
    const [one, last] = [by[0]!, by.at(-1)!];
    const word = worse === "up" ? "rise" : "fall";
    const half = last.at_power_50 === null ? `no ${word} within [0, 1]` : `a ${word} of ${shift(last.at_power_50)}`;
    const main = `${p0.toFixed(3)}: ${half} is caught by ${runsOf(last.runs)} in half the cases, ${shift(last.at_power_95)} in 95%`;
    return by.length > 1 ? `${main} (by 1 run: ${shift(one.at_power_50)}, ${shift(one.at_power_95)})` : main;
  };
  const sustained = d.by.at(-1)!.runs;
  return {
    note:
      `The smallest harmful shift of each headline rate the charts catch (Fisher's test of its counts, exact power, ` +
      `at the one-sided level ${Number(d.level.toPrecision(3))}, α over ${d.tests} headline tests${sustained > 1 ? `; by ${runsOf(sustained)}: the sustained chart's mean of ${sustained}` : ""}):`,
    lines: rated.map((m) => ({ metric: m.metric, text: text(m.detectable!) })),
    hint:
      t.reference.source === "baseline"
        ? null
        : `Judged against the first ${runsOf(t.reference.runs)} alone: a baseline (--baseline) or more reference runs (--reference-runs) narrows these.`,
  };
}

/** The metrics to chart: every one a run or the baseline has, or those --metrics names (each must be one of them). */
function chartedMetrics(runs: readonly Snapshot[], baseline: Snapshot | null, wanted: TrendOptions["metrics"]): string[] {
  const all = [...new Set([...runs.flatMap((r) => Object.keys(r.metrics)), ...Object.keys(baseline?.between_runs ?? {})])].sort();
  const unknown = wanted?.find((n) => !all.includes(n));
  // A misspelt name would chart nothing and pass --fail-on-alert: bad input, not an empty trend.
  if (unknown !== undefined) throw new InputError("command line", "--metrics", `unknown metric "${unknown}": not in any run or the baseline`);
  return wanted ? all.filter((n) => wanted.includes(n)) : all;
}

/** A metric's fixed reference: the baseline's between-run values, else those of the history's reference runs. */
function referenceFor(metric: string, baseline: Snapshot | null, refRuns: readonly Snapshot[]): Reference {
  if (baseline) {
    const b = baseline.between_runs[metric];
    return b ? referenceOf(b.values, b.numerators, b.denominators, true) : referenceOf([], [], [], true);
  }
  const m = refRuns.map((r) => r.metrics[metric]);
  return referenceOf(
    m.map((x) => x?.value ?? null),
    m.map((x) => x?.numerator ?? null),
    m.map((x) => x?.denominator ?? null),
    false,
  );
}

/** Why a metric's judged runs were not all tested, or null when they were. */
function untestedNote(points: readonly TrendPoint[], first: number): string | null {
  const judged = points.filter((p) => !p.reference_run);
  const tested = judged.filter((p) => p.shift !== null).length;
  const valued = judged.filter((p) => p.value !== null).length;
  if (valued === 0) return judged.length === 0 ? `no run after the reference's ${first}` : "no run has a value";
  if (tested === 0) return "not tested: no per-item values to pair, no event count to test exactly, and the reference has fewer than two runs with spread";
  return tested < valued ? `${valued - tested} run(s) with a value not tested` : null;
}

/** Where the fixed reference comes from: the baseline, or the history's first runs. */
function referenceSource(baseline: Snapshot | null, first: number, referenceRuns: number): TrendResult["reference"] {
  return baseline
    ? { source: "baseline", runs: baseline.runs.length, description: `the baseline ${describeSnapshot(baseline)}` }
    : {
        source: "first_runs",
        runs: first,
        description: `the first ${first} run(s) of the history (pre-registered with --reference-runs ${referenceRuns}; not judged)`,
      };
}

/** What the charts are and what an alarm means, in one paragraph for the report. */
function caveatOf(reference: TrendResult["reference"], opts: TrendOptions, headlineCount: number): string {
  return (
    `Fixed reference: ${reference.description}. Charts: shift (each run against the reference: Fisher's exact test of the counts for rates over trials or items, an exact count test for rates with few events, otherwise paired over the items), ` +
    `sustained (the mean of the last 2 to ${opts.sustain} runs since the reference), trailing window W ${opts.window}${opts.window < 20 ? " (unreliable below 20)" : ""}; ` +
    `each chart at ${opts.alpha} false alarms per run within each family (Holm over the tests that can reach it: ${headlineCount} pre-registered headline metrics, the gate's; the rest exploratory). ` +
    "Alarms open an investigation; only the gate against the fixed baseline decides a release."
  );
}

/** Every alarm of every metric, in metric then run order. */
function alertsOf(metrics: readonly MetricTrend[]): TrendAlert[] {
  return metrics.flatMap((mt) =>
    mt.points.flatMap((p, index) =>
      p.alerts.map((chart): TrendAlert => {
        const tested = chart === "shift" ? p.shift : chart === "sustained" ? p.sustained : null;
        return {
          metric: mt.metric,
          family: mt.family,
          run: p.run,
          index,
          chart,
          value: p.value,
          reference_mean: mt.reference.mean,
          delta: tested?.delta ?? null,
          z: tested ? tested.z : (p.trailing?.T ?? null),
        };
      }),
    ),
  );
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
 * A metric's alarm episode: since when (the first alarm; when only the sustained chart saw it, the
 * first run of its window), and how far the last run's value is from the reference, in reference
 * SDs.
 */
function episodeOf(points: readonly TrendPoint[], ref: Reference): MetricTrend["episode"] {
  const first = points.findIndex((p) => p.alerts.length > 0);
  if (first < 0) return null;
  const at = points[first]!;
  const since = at.alerts.every((a) => a === "sustained") ? first - at.sustained!.runs + 1 : first;
  const last = [...points].reverse().find((p) => p.value !== null);
  const lastValue = last?.value ?? null;
  const sd = sdOf(ref.stats);
  const distance = lastValue !== null && ref.stats.n > 0 && sd !== null && sd > 0 ? (lastValue - ref.stats.mean) / sd : null;
  const charts = [...new Set(points.flatMap((p) => p.alerts))];
  return { since, first_alert: first, last_value: lastValue, distance_sd: distance, charts };
}
