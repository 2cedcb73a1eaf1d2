import type { CorpusGoal } from "../formats/goal.ts";
import type { Fixture } from "../formats/fixture.ts";
import type { TrialRecord } from "../formats/records.ts";
import type { InjectionTrapTruth, SecurityVariantTruth } from "./suite-truth.ts";

export interface MetricsInput {
  trials: readonly TrialRecord[];
  fixtures: readonly Fixture[];
  goals: readonly CorpusGoal[];
  /** Ground truth of the security oracle's variants (suite security). */
  security?: readonly SecurityVariantTruth[];
  /** The injection suite's traps and controls. */
  injection?: readonly InjectionTrapTruth[];
}

export interface MetricsOptions {
  /** Seeds every bootstrap (one stream per metric key); recorded in the summary. */
  seed: number;
  /** Cluster-bootstrap replicates (default 2000, enough for a standard error). */
  bootstrapReps?: number;
  /** Confidence level of every interval (default 0.95). */
  conf?: number;
}

/**
 * How a metric's interval was computed (METHODOLOGY.md §2). `clopper_pearson`: a rate with zero
 * events (or all events) gets the exact one-sided bound over its units instead.
 */
export type IntervalMethod = "t_clustered" | "paired_t" | "wilson" | "cluster_bootstrap" | "clopper_pearson" | "poisson_exact" | "none";

/**
 * One metric (docs/design.md §10). value is null when it cannot be computed (no item qualifies); the
 * interval is null below two items. n_items and n_trials count what entered the value.
 */
export interface MetricValue {
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
  n_items: number;
  n_trials: number;
  interval: IntervalMethod;
  /**
   * For rates of events: the event count and the units it is counted over (trials for per-trial
   * rates, items for item shares, findings or calls for ratios). A per-trial rate's value is the
   * mean of per-item shares, which equals numerator/denominator when items have equal trials.
   */
  numerator?: number;
  denominator?: number;
}

export type MetricMap = Record<string, MetricValue>;

/** What the interval helpers need: the level, the run seed and the replicate count. */
export interface EstimateContext {
  conf: number;
  seed: number;
  reps: number;
}
