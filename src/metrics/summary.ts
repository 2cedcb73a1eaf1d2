import type { Suite } from "../formats/records.ts";
import { agreementCoefficients, evidenceDriftRate, flipRate, unanimousEvidenceDriftRate } from "./consistency.ts";
import { availabilityMetrics } from "./availability.ts";
import { downgradeRates, unsupportedEvidence } from "./evidence.ts";
import { fixtureChecks, goalChecks, judgeExpectations, type ExpectationReport } from "./expectations.ts";
import { familyMigration, fixtureRateMetrics, type FamilyConfusion, type FixtureItem } from "./ground-truth.ts";
import { injectionShift } from "./injection.ts";
import { injectionTrapMetrics } from "./injection-traps.ts";
import { securityOracleMetrics } from "./security-oracle.ts";
import type { CorpusGoal } from "../formats/goal.ts";
import { SUMMARY_SCHEMA_VERSION } from "../formats/summary.ts";
import { groupTrials, type ItemTrials } from "./items.ts";
import { engineOperational, spendByRole } from "./operational.ts";
import type { EstimateContext, MetricMap, MetricsInput, MetricsOptions } from "./types.ts";

const SUITE_METRICS: ReadonlySet<Suite> = new Set(["security", "injection"]);

/** The security oracle's and the injection traps' metrics: present only when the run has their trials. */
function suiteMetrics(all: readonly ItemTrials[], input: MetricsInput, goals: readonly { item: ItemTrials; definition: CorpusGoal }[], ctx: EstimateContext): MetricMap {
  const injection = all.filter((it) => it.suite === "injection");
  return {
    ...securityOracleMetrics(all.filter((it) => it.suite === "security"), input.security ?? [], ctx),
    ...injectionTrapMetrics(injection, input.injection ?? [], injection.length ? goals.map(({ item, definition }) => ({ item, goal: definition })) : [], ctx),
  };
}

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
  /** `metrics.<name>` (DESIGN.md §10, METHODOLOGY.md §3–4). */
  metrics: MetricMap;
  /** Intended × observed family counts behind family_migration_rate. */
  family_confusion: FamilyConfusion;
  /** `operational.<name>` (METHODOLOGY.md §5). */
  operational: MetricMap;
  expectations: { goals: ExpectationReport; fixtures: ExpectationReport };
}

function join<T extends { id: string }>(items: readonly ItemTrials[], definitions: readonly T[], unmatched: string[]): { item: ItemTrials; definition: T }[] {
  const byId = new Map(definitions.map((d) => [d.id, d]));
  return items.flatMap((item) => {
    const definition = byId.get(item.item_id);
    if (definition === undefined) {
      unmatched.push(`${item.suite}/${item.item_id}`);
      return [];
    }
    return [{ item, definition }];
  });
}

/**
 * The run summary: every metric with its interval and counts, the operational numbers and the
 * expectation checks. Pure: the same trials, fixtures, goals and seed give the same summary,
 * whatever the order of the input.
 */
export function summarize(input: MetricsInput, options: MetricsOptions): Summary {
  const ctx: EstimateContext = { conf: options.conf ?? 0.95, seed: options.seed, reps: options.bootstrapReps ?? 2000 };
  const all = groupTrials(input.trials, input.fixtures);
  // The security and injection suites have metrics of their own; every other metric reads the rest.
  const items = all.filter((it) => !SUITE_METRICS.has(it.suite));
  const boundary = items.filter((it) => it.scheme === "critic");
  const engine = items.filter((it) => it.scheme === "engine");
  const unmatched: string[] = [];
  const fixtureJoin = join(boundary, input.fixtures, unmatched);
  const goalJoin = join(engine, input.goals, unmatched);
  const fixtureItems: FixtureItem[] = fixtureJoin.map(({ item, definition }) => ({ item, fixture: definition }));
  const migration = familyMigration(fixtureItems, ctx);

  const tally = (key: (it: ItemTrials) => number) =>
    all.reduce<Partial<Record<Suite, number>>>((acc, it) => ({ ...acc, [it.suite]: (acc[it.suite] ?? 0) + key(it) }), {});

  return {
    schema_version: SUMMARY_SCHEMA_VERSION,
    conf: ctx.conf,
    seed: ctx.seed,
    bootstrap_reps: ctx.reps,
    counts: { trials: tally((it) => it.trials.length), items: tally(() => 1), unmatched_items: unmatched },
    metrics: {
      label_flip_rate: flipRate(boundary, ctx),
      engine_flip_rate: flipRate(engine, ctx),
      evidence_drift_rate: evidenceDriftRate(boundary, ctx),
      "evidence_drift_rate.unanimous": unanimousEvidenceDriftRate(boundary, ctx),
      ...migration.metric,
      ...fixtureRateMetrics(fixtureItems, ctx),
      ...unsupportedEvidence(boundary, ctx),
      ...downgradeRates(boundary, ctx),
      ...injectionShift(fixtureItems, ctx),
      ...availabilityMetrics(boundary, engine, ctx),
      ...agreementCoefficients(boundary, ctx, "critic"),
      ...suiteMetrics(all, input, goalJoin, ctx),
    },
    family_confusion: migration.confusion,
    // Spend is the whole run's: every suite's calls were bought.
    operational: { ...engineOperational(engine, ctx), ...spendByRole(all) },
    expectations: {
      goals: judgeExpectations(goalJoin, goalChecks),
      fixtures: judgeExpectations(fixtureJoin, fixtureChecks),
    },
  };
}
