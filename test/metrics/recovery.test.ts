/**
 * Metric recovery on the sim provider (issue 7 acceptance): for three noise profiles with analytic
 * expectations, the 95% intervals of label_flip_rate, critic_miss_rate, family_migration_rate
 * and unsupported_evidence_rate cover the analytic value in at least 18 of 20 seeds.
 *
 * The analytic values come from recovery-design.ts (derived from the profile parameters, citing the
 * sim README); the measured ones from a sweep of the synthetic boundary set with the runner's own
 * trial executor and `summarize`. The sim is seeded, so each seed's outcome is reproducible.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { checkEvidence } from "../../src/critic/evidence.ts";
import { runGates } from "../../src/gates/index.ts";
import type { Summary } from "../../src/metrics/summary.ts";
import { loadSimProfile, PROFILES_DIR, type SimProfile } from "../../src/sim/profile.ts";
import { analyticValues, RECOVERY_DESIGN, RECOVERY_METRICS, recoveryFixtures, type RecoveryMetric } from "./recovery-design.ts";
import { recoverySweep } from "./recovery-sweep.ts";

const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
const TRIALS_PER_ITEM = 5;
/**
 * "cover the analytic value in at least 90% of 20 seeds". Measured over seeds 1–200 with this
 * design: the t intervals (flip, under-claim) cover 96.5–99.5%, the ratio bootstraps (migration,
 * unsupported evidence) 93–95.5% (a percentile bootstrap on about ten events per sweep under-covers
 * a little, METHODOLOGY §2). With the seeds fixed the check is reproducible, but any change to the
 * sim's draws re-rolls it: twelve independent 18-of-20 checks all pass with probability about 0.46
 * at those coverages (0.925^12 ≈ 0.39 even at exactly 95%). After such a change, a failing check
 * calls for a many-seed coverage estimate before a bug hunt.
 */
const REQUIRED_COVERED_SEEDS = 18;

const FIXTURES = recoveryFixtures();
const ITEMS = RECOVERY_DESIGN.rollbackMissing + RECOVERY_DESIGN.uncheckedWarmup + RECOVERY_DESIGN.clean;

const shippedProfile = (name: string) => loadSimProfile(`${PROFILES_DIR}${name}.yaml`);
const DEFAULT = shippedProfile("default");
const HIGH_MISS = shippedProfile("high-miss");
const NOISY = shippedProfile("noisy");

/** 20 sweeps of 260 critic trials take a few CPU seconds; the margin is for a loaded machine. */
const SWEEPS_TIMEOUT_MS = 120_000;

const summariesByProfile = new Map<string, Promise<Summary[]>>();

/** One sweep summary per seed, computed once per profile (the negative control reuses them). */
function summariesUnder(profile: SimProfile): Promise<Summary[]> {
  let summaries = summariesByProfile.get(profile.name);
  if (summaries === undefined) {
    summaries = (async () => {
      const out: Summary[] = [];
      for (const seed of SEEDS) out.push((await recoverySweep(FIXTURES, profile, seed, TRIALS_PER_ITEM)).summary);
      return out;
    })();
    summariesByProfile.set(profile.name, summaries);
  }
  return summaries;
}

function covers(summary: Summary, metric: RecoveryMetric, value: number): boolean {
  const { ci_low, ci_high } = summary.metrics[metric]!;
  return ci_low !== null && ci_high !== null && ci_low <= value && value <= ci_high;
}

function coveredSeeds(summaries: readonly Summary[], metric: RecoveryMetric, value: number): number {
  return summaries.filter((s) => covers(s, metric, value)).length;
}

/** The intervals that miss `value`, by seed, for a failure message. */
function misses(summaries: readonly Summary[], metric: RecoveryMetric, value: number): string {
  return summaries
    .flatMap((s, i) => (covers(s, metric, value) ? [] : [`seed ${SEEDS[i]}: [${s.metrics[metric]!.ci_low}, ${s.metrics[metric]!.ci_high}]`]))
    .join("; ");
}

describe("the recovery design is what the analytic derivation assumes", () => {
  it("has seeded fixtures of both gate visibilities and clean controls", () => {
    expect(FIXTURES).toHaveLength(ITEMS);
    expect(new Set(FIXTURES.flatMap((f) => f.seeded_defects.map((d) => d.gate_visible)))).toEqual(new Set([true, false]));
    expect(FIXTURES.filter((f) => f.seeded_defects.length === 0)).toHaveLength(RECOVERY_DESIGN.clean);
  });

  it("the gates find exactly the expected findings, each at a seeded defect of its family, so the critic perceives only the seeded defects", () => {
    for (const fx of FIXTURES) {
      const found = runGates(fx.goal, fx.plan);
      expect(
        found.map((f) => ({ code: f.code, task_id: f.task_id })),
        fx.id,
      ).toEqual(fx.expected_gate_findings);
      for (const f of found)
        expect(
          fx.seeded_defects.some((d) => d.task === f.task_id && d.family === f.family),
          fx.id,
        ).toBe(true);
    }
  });

  it("every seeded claim is supported by its plan (it blocks under either tolerance and is checkable)", () => {
    for (const fx of FIXTURES) {
      for (const d of fx.seeded_defects) {
        const evidence = { claim: d.claim.kind, tasks: d.claim.tasks, facts: d.claim.facts };
        expect(checkEvidence(fx.goal, fx.plan, { task_id: d.task, evidence }).status, fx.id).toBe("supported");
      }
    }
  });

  it("gives the hand-computed values under the noisy profile (m = μ = s = h = 0.2)", () => {
    // P(block): rollback-missing (strict) 1 − 0.36·0.8 = 0.712; unchecked-warmup (balanced) 0.8·0.8 = 0.64; clean (strict) 0.2.
    // Flip: (20·2·0.712·0.288 + 20·2·0.64·0.36 + 12·2·0.2·0.8) / 52. Under-claim: (0.288 + 0.36) / 2.
    // Unsupported: 52·0.2 / (40·0.8 + 52·0.2). Migration: rollback-missing (5 tasks, 2 of 4 pairs at the task)
    // 0.16·(1 − 0.04/4) / (1 − 0.2·0.96·0.95); unchecked-warmup (6 tasks, 2 of 5 pairs) 0.16·(1 − 0.2/6/4) / (1 − 0.2·(1 − 0.2/6)·0.96).
    const values = analyticValues(FIXTURES, NOISY.critic);
    expect(values.label_flip_rate).toBeCloseTo((20 * 2 * 0.712 * 0.288 + 20 * 2 * 0.64 * 0.36 + 12 * 2 * 0.2 * 0.8) / 52, 12);
    expect(values.critic_miss_rate).toBeCloseTo(0.324, 12);
    expect(values.unsupported_evidence_rate).toBeCloseTo(10.4 / 42.4, 12);
    expect(values.family_migration_rate).toBeCloseTo((0.1584 + 0.16 * (1 - 0.2 / 6 / 4)) / (0.8176 + 1 - 0.2 * (1 - 0.2 / 6) * 0.96), 12);
  });
});

describe.each([DEFAULT, HIGH_MISS, NOISY])(
  `metric recovery on the $name sim profile (${SEEDS.length} seeds × ${ITEMS} fixtures × ${TRIALS_PER_ITEM} trials)`,
  (profile) => {
    const expected = analyticValues(FIXTURES, profile.critic);
    let summaries: Summary[] = [];
    beforeAll(async () => {
      summaries = await summariesUnder(profile);
    }, SWEEPS_TIMEOUT_MS);

    it("records every trial and none of them as an infrastructure error", () => {
      for (const s of summaries) {
        expect(s.counts.trials.boundary).toBe(ITEMS * TRIALS_PER_ITEM);
        expect(s.counts.unmatched_items).toEqual([]);
        expect(s.metrics.trial_error_rate!.value).toBe(0);
      }
    });

    it.each(RECOVERY_METRICS)(
      `%s: the 95 percent interval covers the analytic value in at least ${REQUIRED_COVERED_SEEDS} of ${SEEDS.length} seeds`,
      (metric) => {
        const covered = coveredSeeds(summaries, metric, expected[metric]);
        expect(
          covered,
          `${metric} = ${expected[metric]} covered in ${covered}/${SEEDS.length}; missed by ${misses(summaries, metric, expected[metric])}`,
        ).toBeGreaterThanOrEqual(REQUIRED_COVERED_SEEDS);
      },
    );
  },
);

describe("negative controls: the coverage check fails on a wrong analytic value", () => {
  let noisy: Summary[] = [];
  beforeAll(async () => {
    noisy = await summariesUnder(NOISY);
  }, SWEEPS_TIMEOUT_MS);

  it.each(RECOVERY_METRICS)("%s: the intervals measured under noisy do not cover the default profile's analytic value", (metric) => {
    const wrong = analyticValues(FIXTURES, DEFAULT.critic)[metric];
    expect(coveredSeeds(noisy, metric, wrong)).toBeLessThan(REQUIRED_COVERED_SEEDS);
  });

  it("critic_miss_rate: the miss rate alone (b = 1 − m, forgetting migration and inflation) is not covered", () => {
    const missOnly = NOISY.critic.miss_rate.weak_rollback;
    expect(coveredSeeds(noisy, "critic_miss_rate", missOnly)).toBeLessThan(REQUIRED_COVERED_SEEDS);
  });
});
