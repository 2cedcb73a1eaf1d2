import { clusterBootstrap, ratioBootstrap, type BootstrapResult, type CountRatioItem } from "../stats/bootstrap.ts";
import { meanInterval } from "../stats/mean.ts";
import { clopperPearson, exactLowerBound, exactUpperBound, wilson } from "../stats/proportion.ts";
import type { EstimateContext, IntervalMethod, MetricValue } from "./types.ts";

/**
 * One item's contribution: its per-item value, how many trials it reduced, and the cluster it
 * belongs to (its fixture group: twins, triplets and injection copies are one unit; otherwise
 * the item alone). `events`: for a per-trial rate, the trials with the event (value = events/trials).
 */
export interface ItemValue {
  value: number;
  trials: number;
  cluster: string;
  events?: number;
}

/** A ratio item: its numerator and denominator counts (e.g. bad findings of checkable findings). */
export interface RatioItem extends CountRatioItem {
  trials: number;
  cluster: string;
}

const sumTrials = (items: readonly { trials: number }[]) => items.reduce((s, it) => s + it.trials, 0);

export function emptyMetric(interval: IntervalMethod): MetricValue {
  return { value: null, ci_low: null, ci_high: null, n_items: 0, n_trials: 0, interval };
}

const clip = (v: number | null, [lo, hi]: readonly [number, number]) => (v === null ? null : Math.min(hi, Math.max(lo, v)));

/** Below this, a width or a spread is floating-point rounding, not data. */
export const ROUNDING = 1e-12;

/**
 * A clustered interval of zero width inside the range says the clusters did not spread, not that
 * the value is certain (every clean control blocked once in five trials: [0.2, 0.2]). A rate with
 * counts then gets the two-sided exact interval over its events and units; any other value gets no
 * interval. Intervals of width, and the exact edge bounds, pass through unchanged.
 */
function noFalseCertainty(m: MetricValue, range: readonly [number, number], conf: number): MetricValue {
  // Zero width up to rounding: items that all sit at 0.2 leave an SE of 1e-17, not 0.
  if (m.value === null || m.ci_low === null || m.ci_high === null || m.ci_high - m.ci_low > ROUNDING || m.value <= range[0] || m.value >= range[1]) return m;
  if (m.numerator !== undefined && m.denominator !== undefined && m.denominator > 0 && range[0] === 0 && range[1] === 1) {
    const ci = clopperPearson(m.numerator, m.denominator, conf);
    return { ...m, ci_low: ci.low, ci_high: ci.high, interval: "clopper_pearson" };
  }
  return { ...m, ci_low: null, ci_high: null };
}

/**
 * The interval of a rate that saw no event, or only events, among `units` (docs/design.md §10): the
 * exact one-sided bound, never [0, 0] or [1, 1]; a signed rate at 0 is bounded on both sides.
 * null when the value is not at such an edge or the metric is not a rate.
 */
function exactEdge(value: number, units: number, range: readonly [number, number], conf: number): [number, number] | null {
  // Only rates have events: a per-goal count at 0 is not a zero-event rate.
  if (units < 1 || range[1] !== 1) return null;
  const bound = exactUpperBound(0, units, conf);
  if (value === 0 && range[0] === 0) return [0, bound];
  if (value === 0 && range[0] === -1) return [-bound, bound];
  if (value === 1 && range[1] === 1) return [exactLowerBound(units, units, conf), 1];
  return null;
}

/**
 * The interval of a count per trial (range [0, ∞)) that saw no event in any of its `trials`: the
 * exact one-sided Poisson bound, [0, −ln(1 − conf) · unit / trials] (3.0/n at 95%), `unit` being
 * what one event adds to a trial's value (100 for "per 100 goals"). null otherwise.
 */
function countEdge(value: number, trials: number, range: readonly [number, number], unit: number, conf: number): [number, number] | null {
  if (value !== 0 || range[0] !== 0 || range[1] !== Number.POSITIVE_INFINITY || trials < 1) return null;
  return [0, (-Math.log(1 - conf) * unit) / trials];
}

/**
 * Mean over items of a per-item value with the clustered t-interval (SE over clusters), clipped to
 * the metric's range: a rate cannot leave [0, 1] however wide its interval. When every item sits
 * at the same edge of the range (no event in any trial, or only events) the interval is the exact
 * bound over the trials instead; for a count per trial at 0, the exact Poisson bound (`unit`: what
 * one event adds to a trial's value).
 */
export function itemMeanMetric(
  items: readonly ItemValue[],
  ctx: EstimateContext,
  range: readonly [number, number] = [0, 1],
  interval: IntervalMethod = "t_clustered",
  unit = 1,
): MetricValue {
  const ci = meanInterval(
    items.map((it) => it.value),
    ctx.conf,
    items.map((it) => it.cluster),
  );
  if (ci === null) return emptyMetric(interval);
  const trials = sumTrials(items);
  const counts = items.every((it) => it.events !== undefined) ? { numerator: items.reduce((s, it) => s + it.events!, 0), denominator: trials } : {};
  const base = { value: ci.mean, n_items: items.length, n_trials: trials, ...counts };
  const same = items.every((it) => it.value === ci.mean);
  const edge = same ? exactEdge(ci.mean, trials, range, ctx.conf) : null;
  if (edge) return { ...base, ci_low: edge[0], ci_high: edge[1], interval: "clopper_pearson" };
  const none = same ? countEdge(ci.mean, trials, range, unit, ctx.conf) : null;
  if (none) return { ...base, ci_low: none[0], ci_high: none[1], interval: "poisson_exact" };
  return noFalseCertainty({ ...base, ci_low: clip(ci.low, range), ci_high: clip(ci.high, range), interval }, range, ctx.conf);
}

/**
 * Share of items for which a binary holds (k of n items), with the Wilson interval; at k = 0 or
 * k = n the exact bound over the items.
 */
export function itemShareMetric(items: readonly { hit: boolean; trials: number }[], ctx: EstimateContext): MetricValue {
  if (items.length === 0) return emptyMetric("wilson");
  const k = items.filter((it) => it.hit).length;
  const n = items.length;
  const edge = exactEdge(k / n, n, [0, 1], ctx.conf);
  const ci = edge ? { low: edge[0], high: edge[1] } : wilson(k, n, ctx.conf);
  return {
    value: k / n,
    ci_low: ci.low,
    ci_high: ci.high,
    n_items: n,
    n_trials: sumTrials(items),
    interval: edge ? "clopper_pearson" : "wilson",
    numerator: k,
    denominator: n,
  };
}

/** Any statistic of whole items with a percentile cluster bootstrap over their clusters (stream = the metric key). */
export function bootstrapMetric<T extends { trials: number; cluster: string }>(
  items: readonly T[],
  statistic: (sample: readonly T[]) => number | null,
  ctx: EstimateContext,
  stream: string,
): MetricValue {
  return noFalseCertainty(bootstrapValue(items, clusterBootstrap(items, statistic, bootstrapOptions(ctx, stream))), [-Infinity, Infinity], ctx.conf);
}

const bootstrapOptions = (ctx: EstimateContext, stream: string) => ({
  reps: ctx.reps,
  seed: ctx.seed,
  conf: ctx.conf,
  stream,
  clusterOf: (it: { cluster: string }) => it.cluster,
});

function bootstrapValue(items: readonly { trials: number }[], r: BootstrapResult): MetricValue {
  return { value: r.value, ci_low: r.low, ci_high: r.high, n_items: items.length, n_trials: sumTrials(items), interval: "cluster_bootstrap" };
}

/**
 * Ratio of sums Σ num / Σ den over items (a ratio estimator clustered by item group), cluster
 * bootstrap; no event (or only events) among the units gets the exact bound over them.
 */
export function ratioMetric(items: readonly RatioItem[], ctx: EstimateContext, stream: string): MetricValue {
  const used = items.filter((it) => it.den > 0);
  const numerator = used.reduce((s, it) => s + it.num, 0);
  const denominator = used.reduce((s, it) => s + it.den, 0);
  const edge = denominator > 0 ? exactEdge(numerator / denominator, denominator, [0, 1], ctx.conf) : null;
  if (edge) {
    return {
      value: numerator / denominator,
      ci_low: edge[0],
      ci_high: edge[1],
      n_items: used.length,
      n_trials: sumTrials(used),
      interval: "clopper_pearson",
      numerator,
      denominator,
    };
  }
  return noFalseCertainty({ ...bootstrapValue(used, ratioBootstrap(used, bootstrapOptions(ctx, stream))), numerator, denominator }, [0, 1], ctx.conf);
}
