import { median, quantileSorted } from "simple-statistics";
import { ESCALATION_REASONS } from "../formats/enums.ts";
import { ROLES, TRIAL_STATUSES, type CallRecord, type Role, type TrialRecord } from "../formats/records.ts";
import { emptyMetric, itemMeanMetric } from "./estimate.ts";
import type { ItemTrials } from "./items.ts";
import { blockerKeysByOrigin, transportAttempts, type BlockerOrigin } from "./trial-facts.ts";
import type { EstimateContext, MetricMap, MetricValue } from "./types.ts";

const UNBOUNDED: readonly [number, number] = [0, Infinity];

/** A quantile of trial-level values pooled over trials (descriptive: no interval). */
function pooledQuantile(items: readonly ItemTrials[], value: (t: TrialRecord) => number | null, p: number): MetricValue {
  const values: number[] = [];
  let nItems = 0;
  for (const item of items) {
    const own = item.trials.map(value).filter((v) => v !== null);
    if (own.length > 0) nItems += 1;
    values.push(...own);
  }
  if (values.length === 0) return emptyMetric("none");
  values.sort((a, b) => a - b);
  return { value: quantileSorted(values, p), ci_low: null, ci_high: null, n_items: nItems, n_trials: values.length, interval: "none" };
}

/** Mean over items of the item's mean per-trial value, clustered t-interval. */
function perGoalMean(items: readonly ItemTrials[], value: (t: TrialRecord) => number, ctx: EstimateContext, scale = 1): MetricValue {
  const values = items
    .filter((item) => item.trials.length > 0)
    .map((item) => ({
      value: (scale * item.trials.reduce((s, t) => s + value(t), 0)) / item.trials.length,
      trials: item.trials.length,
      cluster: item.cluster,
    }));
  return itemMeanMetric(values, ctx, UNBOUNDED, "t_clustered", scale);
}

/**
 * Engine operations per corpus goal (docs/design.md §10 operational keys). Latency quantiles pool
 * trials of one status; per-goal means reduce each goal over its trials first. Blockers are
 * distinct keys over all rounds of a decided trial (approved or escalated); escalations are per
 * 100 decided trials by every recorded reason; carry-forward lapses (critic blockers escaped
 * because their task is gone, docs/design.md §6) are per 100 decided trials that record them; LLM
 * calls count transport attempts of every trial, and again of decided trials only.
 */
export function engineOperational(goals: readonly ItemTrials[], ctx: EstimateContext): MetricMap {
  const metrics: MetricMap = {};
  for (const status of TRIAL_STATUSES) {
    const latency = (t: TrialRecord) => (t.status === status ? t.latency_ms : null);
    metrics[`latency_ms_p50.${status}`] = pooledQuantile(goals, latency, 0.5);
    metrics[`latency_ms_p95.${status}`] = pooledQuantile(goals, latency, 0.95);
  }
  // An errored trial was cut short by the infrastructure: its blockers and escalations say
  // nothing about the plan, so both are over decided trials (approved or escalated) only.
  const decided = goals.map((g) => ({ ...g, trials: g.trials.filter((t) => t.status !== "error") })).filter((g) => g.trials.length > 0);
  for (const origin of ["gate", "critic"] as BlockerOrigin[]) {
    metrics[`blockers_per_goal.${origin}`] = perGoalMean(decided, (t) => blockerKeysByOrigin(t)[origin].size, ctx);
  }
  metrics.escalations_per_100_goals = perGoalMean(decided, (t) => (t.status === "escalated" ? 1 : 0), ctx, 100);
  for (const reason of ESCALATION_REASONS) {
    metrics[`escalations_per_100_goals.${reason}`] = perGoalMean(decided, (t) => (t.escalation_reasons.includes(reason) ? 1 : 0), ctx, 100);
  }
  // Rounds written before lapses were recorded say nothing about them: such a trial is unknown, not 0.
  const lapsesRecorded = decided
    .map((g) => ({ ...g, trials: g.trials.filter((t) => t.rounds.every((r) => r.carry_forward_lapsed !== undefined)) }))
    .filter((g) => g.trials.length > 0);
  metrics.carry_forward_lapses_per_100_goals = perGoalMean(
    lapsesRecorded,
    (t) => t.rounds.reduce((n, r) => n + (r.carry_forward_lapsed?.length ?? 0), 0),
    ctx,
    100,
  );
  metrics.llm_calls_per_goal = perGoalMean(goals, (t) => transportAttempts(t), ctx);
  for (const role of ROLES) metrics[`llm_calls_per_goal.${role}`] = perGoalMean(goals, (t) => transportAttempts(t, role), ctx);
  // The calls of the trials the engine decided, as blockers and escalations: an imported engine run
  // whose outcome no trace records (status error) made calls, but no decision they led to.
  for (const role of ROLES) metrics[`llm_calls_per_decided_goal.${role}`] = perGoalMean(decided, (t) => transportAttempts(t, role), ctx);
  // A trial cut short (an error) stopped revising before the engine decided: its rounds are not the number it took.
  const revisions = decided.flatMap((g) => g.trials.filter((t) => t.rounds.length > 0).map((t) => t.rounds.length - 1));
  metrics.revisions_median =
    revisions.length === 0
      ? emptyMetric("none")
      : {
          value: median(revisions),
          ci_low: null,
          ci_high: null,
          n_items: decided.filter((g) => g.trials.some((t) => t.rounds.length > 0)).length,
          n_trials: revisions.length,
          interval: "none",
        };
  return metrics;
}

/** Run totals (no interval) of a per-call quantity over every trial with a call of the role. */
function roleTotal(items: readonly ItemTrials[], role: Role | undefined, value: (c: TrialRecord["calls"][number]) => number | null): MetricValue {
  let total: number | null = 0;
  let nItems = 0;
  let nTrials = 0;
  for (const item of items) {
    let itemHasCall = false;
    for (const trial of item.trials) {
      const calls = trial.calls.filter((c) => role === undefined || c.role === role);
      if (calls.length === 0) continue;
      itemHasCall = true;
      nTrials += 1;
      for (const call of calls) {
        const v = value(call);
        // One unknown makes the total unknown: a partial sum would read as the whole.
        total = v === null || total === null ? null : total + v;
      }
    }
    if (itemHasCall) nItems += 1;
  }
  if (nTrials === 0) return emptyMetric("none");
  return { value: total, ci_low: null, ci_high: null, n_items: nItems, n_trials: nTrials, interval: "none" };
}

/**
 * Tokens and cost by role over all trials of the run (both suites). Tokens sum the usage the
 * provider reported (calls without usage add nothing and are counted in `calls_without_usage`);
 * when no call of the role reported usage (the sim never does) the total is null, not a measured 0.
 * Cost is null when any call's cost is null.
 */
export function spendByRole(items: readonly ItemTrials[]): MetricMap {
  const metrics: MetricMap = { cost_usd: roleTotal(items, undefined, (c) => c.cost_usd) };
  for (const role of ROLES) {
    const reported = roleTotal(items, role, (c) => (c.usage === null ? 0 : 1)).value;
    const tokens = (value: (c: CallRecord) => number) => {
      const total = roleTotal(items, role, value);
      return reported === 0 ? { ...total, value: null } : total;
    };
    metrics[`tokens_input.${role}`] = tokens((c) => c.usage?.input_tokens ?? 0);
    metrics[`tokens_output.${role}`] = tokens((c) => c.usage?.output_tokens ?? 0);
    metrics[`calls_without_usage.${role}`] = roleTotal(items, role, (c) => (c.usage === null ? 1 : 0));
    metrics[`cost_usd.${role}`] = roleTotal(items, role, (c) => c.cost_usd);
  }
  return metrics;
}
