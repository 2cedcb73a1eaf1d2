import type { Suite } from "../formats/records.ts";
import { METRIC_DEFS, type Computation, type MetricDef } from "./catalogue.ts";
import { verdictCoefficient } from "./consistency.ts";
import { itemMeanMetric, itemShareMetric, ratioMetric, type ItemValue, type RatioItem } from "./estimate.ts";
import { fixtureChecks, goalChecks, judgeExpectations, type ExpectationReport } from "./expectations.ts";
import { familyConfusion, type FamilyConfusion } from "./ground-truth.ts";
import { SUMMARY_SCHEMA_VERSION } from "../formats/summary.ts";
import { runItems, type RunItems } from "./run-items.ts";
import type { EstimateContext, MetricMap, MetricsInput, MetricsOptions, MetricValue } from "./types.ts";

export interface Summary {
  schema_version: typeof SUMMARY_SCHEMA_VERSION;
  conf: number;
  /** Seed of every bootstrap (stream = metric key), so the intervals are reproducible. */
  seed: number;
  bootstrap_reps: number;
  counts: {
    trials: Partial<Record<Suite, number>>;
    items: Partial<Record<Suite, number>>;
    /** Items in the trials with no fixture or goal definition: ground-truth metrics skip them. */
    unmatched_items: string[];
  };
  /** `metrics.<name>` (docs/design.md §10, METHODOLOGY.md §3–4). */
  metrics: MetricMap;
  /** Intended × observed family counts behind family_migration_rate. */
  family_confusion: FamilyConfusion;
  /** `operational.<name>` (METHODOLOGY.md §5). */
  operational: MetricMap;
  expectations: { goals: ExpectationReport; fixtures: ExpectationReport };
}

const defined = <T>(xs: readonly (T | null | undefined)[]): T[] => xs.filter((x): x is T => x !== null && x !== undefined);

/**
 * A metric the catalogue defines by its per-item rule (or a coefficient's statistic), estimated by
 * its kind: a ratio of the items' counts, a share of items, or the mean of the items' values with
 * the clustered interval, clipped to the kind's range.
 */
function fromItems(def: MetricDef, run: RunItems): MetricValue {
  if (def.statistic) return verdictCoefficient(run.boundary, def.statistic, run.ctx, def.id);
  const rule = def.perItem;
  if (rule === null) throw new Error(`metric ${def.id}: no computation, per-item rule or statistic`);
  if (rule.kind === "counts") return ratioMetric(defined<RatioItem>(run.items.map(rule.of)), run.ctx, def.id);
  const values = defined<ItemValue>(run.items.map(rule.of));
  if (def.kind === "item_share")
    return itemShareMetric(
      values.map((v) => ({ hit: v.value === 1, trials: v.trials })),
      run.ctx,
    );
  return itemMeanMetric(values, run.ctx, def.kind === "paired_effect" ? [-1, 1] : [0, 1], def.interval);
}

/** Every metric of the catalogue in its order, each shared computation run once (at its first metric). */
function computeMetrics(run: RunItems): { metrics: MetricMap; operational: MetricMap } {
  const out = { metrics: {} as MetricMap, operational: {} as MetricMap };
  const done = new Set<Computation>();
  for (const def of METRIC_DEFS) {
    if (def.computedBy === undefined) out[def.section][def.id] = fromItems(def, run);
    else if (!done.has(def.computedBy)) {
      done.add(def.computedBy);
      Object.assign(out[def.section], def.computedBy(run));
    }
  }
  return out;
}

/**
 * The run summary: every metric of the catalogue (src/metrics/catalogue.ts) with its interval and
 * counts, the operational numbers and the expectation checks. Pure: the same trials, fixtures,
 * goals and seed give the same summary, whatever the order of the input.
 */
export function summarize(input: MetricsInput, options: MetricsOptions): Summary {
  const ctx: EstimateContext = { conf: options.conf ?? 0.95, seed: options.seed, reps: options.bootstrapReps ?? 2000 };
  const run = runItems(input, ctx);
  const fixtureJoin = run.items.flatMap(({ item, fixture }) => (fixture === undefined ? [] : [{ item, definition: fixture }]));
  const tally = (key: (it: (typeof run.all)[number]) => number) =>
    run.all.reduce<Partial<Record<Suite, number>>>((acc, it) => ({ ...acc, [it.suite]: (acc[it.suite] ?? 0) + key(it) }), {});
  const { metrics, operational } = computeMetrics(run);
  return {
    schema_version: SUMMARY_SCHEMA_VERSION,
    conf: ctx.conf,
    seed: ctx.seed,
    bootstrap_reps: ctx.reps,
    counts: { trials: tally((it) => it.trials.length), items: tally(() => 1), unmatched_items: [...run.unmatched] },
    metrics,
    family_confusion: familyConfusion(fixtureJoin.map(({ item, definition }) => ({ item, fixture: definition }))),
    // Spend is the whole run's: every suite's calls were bought.
    operational,
    expectations: {
      goals: judgeExpectations(
        run.goals.map(({ item, goal }) => ({ item, definition: goal })),
        goalChecks,
      ),
      fixtures: judgeExpectations(fixtureJoin, fixtureChecks),
    },
  };
}
