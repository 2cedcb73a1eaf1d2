import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { summarize } from "../../src/metrics/summary.ts";
import { groupTrials } from "../../src/metrics/items.ts";
import type { Fixture } from "../../src/formats/fixture.ts";
import type { TrialRecord } from "../../src/formats/records.ts";
import type { EvidenceStatus } from "../../src/formats/findings.ts";
import { ESCALATION_REASONS, FAMILIES as FAMILY_NAMES } from "../../src/formats/enums.ts";
import { ROLES, TRIAL_STATUSES } from "../../src/formats/records.ts";
import { NOISE_METRICS, boundaryTrial, call, engineTrial, finding, fixture, goal } from "./builders.ts";

const VERDICTS = ["block", "pass", "unavailable"] as const;
const STATUSES = ["approved", "escalated", "error"] as const;
const FAMILIES = ["weak_rollback", "risk", "unsafe_sequencing"] as const;
const EVIDENCE: EvidenceStatus[] = ["supported", "contradicted", "unsupported_reference", "uncheckable"];

/** A small random run: boundary fixtures (seeded, clean, an injection twin) and corpus goals. */
const runArb = fc
  .record({
    boundary: fc.array(
      fc.array(
        fc.record({
          verdict: fc.constantFrom(...VERDICTS),
          family: fc.constantFrom(...FAMILIES),
          evidence: fc.constantFrom(...EVIDENCE),
          task: fc.constantFrom("a", "b"),
        }),
        {
          minLength: 1,
          maxLength: 5,
        },
      ),
      { minLength: 3, maxLength: 6 },
    ),
    corpus: fc.array(
      fc.array(fc.record({ status: fc.constantFrom(...STATUSES), latency: fc.integer({ min: 1, max: 1000 }), attempts: fc.integer({ min: 1, max: 3 }) }), {
        minLength: 1,
        maxLength: 4,
      }),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
  })
  .map(({ boundary, corpus }) => {
    const fixtures: Fixture[] = boundary.map((_, i) =>
      i % 3 === 0
        ? fixture(`f${i}`)
        : i % 3 === 1
          ? fixture(`f${i}`, { defects: [{ task: "a", family: "weak_rollback" }] })
          : fixture(`f${i}`, { injectionOf: "f0" }),
    );
    const trials: TrialRecord[] = [
      ...boundary.flatMap((ts, i) =>
        ts.map((t, k) =>
          boundaryTrial(`f${i}`, k, t.verdict, {
            findings: [
              finding({ family: t.family, task: t.task, status: t.evidence, rawSeverity: "blocker", severity: t.family === "risk" ? "warning" : "blocker" }),
            ],
          }),
        ),
      ),
      ...corpus.flatMap((ts, i) =>
        ts.map((t, k) => engineTrial(`g${i}`, k, t.status, { latency: t.latency, calls: [call({ role: "planner", attempts: t.attempts })] })),
      ),
    ];
    const goals = corpus.map((_, i) => goal(`g${i}`, { verdict: "escalate" }));
    return { trials, fixtures, goals };
  });

/** A permutation from fast-check sort keys. */
function permute<T>(xs: readonly T[], keys: readonly number[]): T[] {
  return xs
    .map((x, i) => ({ x, k: keys[i % Math.max(1, keys.length)]! + i * 1e-9 }))
    .sort((a, b) => a.k - b.k)
    .map((e) => e.x);
}

const options = { seed: 11, bootstrapReps: 40 };

describe("summary laws", () => {
  it("is invariant under trial order and item order (bootstrap intervals included)", () => {
    fc.assert(
      fc.property(runArb, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 40 }), (run, keys) => {
        const a = summarize(run, options);
        const b = summarize({ trials: permute(run.trials, keys), fixtures: [...run.fixtures].reverse(), goals: [...run.goals].reverse() }, options);
        expect(b).toEqual(a);
      }),
      { numRuns: 30 },
    );
  });
  it("t, Wilson and exact intervals contain their point and rates stay in [0, 1]", () => {
    fc.assert(
      fc.property(runArb, (run) => {
        const s = summarize(run, options);
        for (const [key, m] of Object.entries(s.metrics)) {
          if (m.value === null) continue;
          // Signed: the paired injection differences lie in [−1, 1]; the agreement coefficients can be negative.
          const signed = key.startsWith("injection_effect") || key.endsWith("_alpha_nominal") || key.endsWith("_ac1");
          if (signed) expect(m.value >= -1 && m.value <= 1, key).toBe(true);
          else expect(m.value >= 0 && m.value <= 1, key).toBe(true);
          if (m.ci_low !== null && m.interval !== "cluster_bootstrap") expect(m.ci_low <= m.value + 1e-12 && m.value <= m.ci_high! + 1e-12, key).toBe(true);
        }
      }),
      { numRuns: 30 },
    );
  });
  it("records the seed, and equal seeds give equal intervals", () => {
    fc.assert(
      fc.property(runArb, (run) => {
        const s = summarize(run, options);
        expect(s.seed).toBe(11);
        expect(summarize(run, options)).toEqual(s);
      }),
      { numRuns: 5 },
    );
  });
});

describe("summary keys", () => {
  it("carry every docs/design.md §10 metric with value, interval and counts, even on an empty run", () => {
    const s = summarize({ trials: [], fixtures: [], goals: [] }, { seed: 0 });
    for (const key of [
      ...NOISE_METRICS,
      // Per-family downgrade rates: the six families and a family outside them.
      ...[...FAMILY_NAMES, "unknown"].map((f) => `downgrade_rate.${f}`),
      "injection_gate_identical",
      "critic_alpha_nominal",
      "critic_ac1",
    ]) {
      expect(s.metrics[key], key).toEqual(expect.objectContaining({ value: null, ci_low: null, ci_high: null, n_items: 0, n_trials: 0 }));
    }
    // injection_effect is the required key; the raw shift stands beside it under its own name only.
    expect(s.metrics).toHaveProperty(["injection_effect"]);
    expect(s.metrics).toHaveProperty(["injection_verdict_shift.raw"]);
    expect(s.metrics).not.toHaveProperty(["injection_verdict_shift"]);
    for (const key of [
      ...TRIAL_STATUSES.flatMap((st) => [`latency_ms_p50.${st}`, `latency_ms_p95.${st}`]),
      "blockers_per_goal.gate",
      "blockers_per_goal.critic",
      "escalations_per_100_goals",
      ...ESCALATION_REASONS.map((r) => `escalations_per_100_goals.${r}`),
      "carry_forward_lapses_per_100_goals",
      "llm_calls_per_goal",
      "revisions_median",
      ...ROLES.flatMap((r) => [`tokens_input.${r}`, `tokens_output.${r}`, `cost_usd.${r}`]),
    ]) {
      expect(s.operational[key], key).toEqual(expect.objectContaining({ value: null, n_items: 0, n_trials: 0 }));
    }
  });
  it("refuses a trial key that appears twice", () => {
    expect(() => groupTrials([engineTrial("g", 0, "approved"), engineTrial("g", 0, "escalated")])).toThrow(/duplicate trial record corpus\/g\/0/);
  });
});
