import { clusterBootstrap } from "../stats/bootstrap.ts";
import { meanInterval } from "../stats/mean.ts";
import { wilson } from "../stats/proportion.ts";
import type { EstimateContext, IntervalMethod, MetricValue } from "./types.ts";

/** One item's contribution: its per-item value and how many trials it reduced. */
export interface ItemValue {
  value: number;
  trials: number;
}

/** A ratio item: its numerator and denominator sums (e.g. bad findings of checkable findings). */
export interface RatioItem {
  num: number;
  den: number;
  trials: number;
}

const sumTrials = (items: readonly { trials: number }[]) => items.reduce((s, it) => s + it.trials, 0);

export function emptyMetric(interval: IntervalMethod): MetricValue {
  return { value: null, ci_low: null, ci_high: null, n_items: 0, n_trials: 0, interval };
}

const clip = (v: number | null, [lo, hi]: readonly [number, number]) => (v === null ? null : Math.min(hi, Math.max(lo, v)));

/**
 * Mean over items of a per-item value with the clustered t-interval (sd of item values / √n),
 * clipped to the metric's range: a rate cannot leave [0, 1] however wide its interval.
 */
export function itemMeanMetric(
  items: readonly ItemValue[],
  ctx: EstimateContext,
  range: readonly [number, number] = [0, 1],
  interval: IntervalMethod = "t_clustered",
): MetricValue {
  const ci = meanInterval(
    items.map((it) => it.value),
    ctx.conf,
  );
  if (ci === null) return emptyMetric(interval);
  return { value: ci.mean, ci_low: clip(ci.low, range), ci_high: clip(ci.high, range), n_items: items.length, n_trials: sumTrials(items), interval };
}

/** Share of items for which a binary holds (k of n items), with the Wilson interval. */
export function itemShareMetric(items: readonly { hit: boolean; trials: number }[], ctx: EstimateContext): MetricValue {
  if (items.length === 0) return emptyMetric("wilson");
  const k = items.filter((it) => it.hit).length;
  const ci = wilson(k, items.length, ctx.conf);
  return {
    value: k / items.length,
    ci_low: ci.low,
    ci_high: ci.high,
    n_items: items.length,
    n_trials: sumTrials(items),
    interval: "wilson",
    numerator: k,
    denominator: items.length,
  };
}

/** Any statistic of whole items with a percentile cluster bootstrap (stream = the metric key). */
export function bootstrapMetric<T extends { trials: number }>(
  items: readonly T[],
  statistic: (sample: readonly T[]) => number | null,
  ctx: EstimateContext,
  stream: string,
): MetricValue {
  const r = clusterBootstrap(items, statistic, { reps: ctx.reps, seed: ctx.seed, conf: ctx.conf, stream });
  return { value: r.value, ci_low: r.low, ci_high: r.high, n_items: items.length, n_trials: sumTrials(items), interval: "cluster_bootstrap" };
}

/** Ratio of sums Σ num / Σ den over items (a ratio estimator clustered by item), cluster bootstrap. */
export function ratioMetric(items: readonly RatioItem[], ctx: EstimateContext, stream: string): MetricValue {
  const used = items.filter((it) => it.den > 0);
  const ratio = (sample: readonly RatioItem[]) => {
    const den = sample.reduce((s, it) => s + it.den, 0);
    return den === 0 ? null : sample.reduce((s, it) => s + it.num, 0) / den;
  };
  return {
    ...bootstrapMetric(used, ratio, ctx, stream),
    numerator: used.reduce((s, it) => s + it.num, 0),
    denominator: used.reduce((s, it) => s + it.den, 0),
  };
}
