import { z } from "zod";
import { SpendSchema } from "./records.ts";

/** 2: under-claim is engine level, critic misses have their own keys, injection effect, exact edge intervals, fixture groups as clusters. */
export const SUMMARY_SCHEMA_VERSION = 2;

/**
 * `{value, ci_low, ci_high, n_items, n_trials}` (docs/design.md §10); null when unknown. Rates of
 * events also carry `numerator` (events) and `denominator` (the units they are counted over),
 * which exact floors and the zero-reference drift test need.
 */
export const MetricCoreSchema = z.strictObject({
  value: z.number().nullable(),
  ci_low: z.number().nullable(),
  ci_high: z.number().nullable(),
  n_items: z.number().int().min(0),
  n_trials: z.number().int().min(0),
  numerator: z.number().int().min(0).optional(),
  denominator: z.number().int().min(0).optional(),
});

/** One metric as summary.json writes it: with its interval method; extra fields (numerator, ...) allowed. */
const MetricValueSchema = z.looseObject({ ...MetricCoreSchema.shape, interval: z.string() });

const ExpectationReportSchema = z.looseObject({
  n_items: z.number().int().min(0),
  n_items_judged: z.number().int().min(0),
  n_items_failed: z.number().int().min(0),
  n_trials_judged: z.number().int().min(0),
  n_trials_failed: z.number().int().min(0),
  failing_items: z.array(z.string()),
  items: z.array(z.looseObject({})),
});

/** One session's spend as the summary reports it: who ran, how it ended, what the journal says it spent. */
const SessionSpendSchema = z.strictObject({
  id: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  outcome: z.string(),
  ...SpendSchema.shape,
});

/** The run's spend from its journal: in all (a lower bound when some call's cost is unknown), then per session. */
const RunSpendSchema = z.strictObject({ ...SpendSchema.shape, sessions: z.array(SessionSpendSchema) });
export type RunSpend = z.output<typeof RunSpendSchema>;

/**
 * `summary.json` (docs/design.md §10): the metrics summary with the run's identity, its spend and the
 * per-item reductions. Keys that later releases add are allowed; the ones read here are typed.
 */
export const SummaryFileSchema = z.looseObject({
  schema_version: z.literal(SUMMARY_SCHEMA_VERSION),
  conf: z.number(),
  seed: z.number().int(),
  bootstrap_reps: z.number().int(),
  counts: z.looseObject({
    trials: z.record(z.string(), z.number().int().min(0)),
    items: z.record(z.string(), z.number().int().min(0)),
    unmatched_items: z.array(z.string()),
  }),
  metrics: z.record(z.string(), MetricValueSchema),
  family_confusion: z.looseObject({ rows: z.array(z.string()), columns: z.array(z.string()), counts: z.array(z.array(z.number())) }),
  operational: z.record(z.string(), MetricValueSchema),
  expectations: z.looseObject({ goals: ExpectationReportSchema, fixtures: ExpectationReportSchema }),
  run: z.looseObject({
    run_id: z.string(),
    state: z.string(),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    config_hash: z.string(),
    corpus_hash: z.string(),
  }),
  /** null: the run has no spend journal (an imported run), so what it spent is unknown. */
  spend: RunSpendSchema.nullable(),
  warnings: z.array(z.string()),
  items: z.array(z.looseObject({ suite: z.string(), item_id: z.string() })),
});
export type SummaryFile = z.output<typeof SummaryFileSchema>;
