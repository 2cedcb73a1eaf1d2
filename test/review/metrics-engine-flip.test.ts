/**
 * docs/design.md §10: critic-unavailable trials are excluded from verdict-agreement metrics and reported
 * by their own rate. A corpus trial whose critic was unavailable escalates (fail closed, §6): its
 * `escalated` status is the outage, not the engine's decision, so engine_flip_rate leaves it out.
 */
import { describe, expect, it } from "vitest";
import { itemValues } from "../../harness/baseline/item-values.ts";
import { groupTrials, itemSummaries } from "../../src/metrics/items.ts";
import { summarize } from "../../src/metrics/summary.ts";
import { engineTrial, engineTrials } from "../metrics/builders.ts";

// g: four approved trials and one that escalated only because the critic was unavailable.
const trials = [...engineTrials("g", "AAAA"), engineTrial("g", 4, "escalated", { reasons: ["critic_unavailable"], rounds: [{}, { critic: null }] })];
const summary = () => summarize({ trials, fixtures: [], goals: [] }, { seed: 1, bootstrapReps: 50 });

describe("engine_flip_rate and critic-unavailable corpus trials", () => {
  it("leaves a trial with an unavailable critic audit out of Q_i (4 approved of 4 counted: Q = 0)", () => {
    expect(summary().metrics.engine_flip_rate).toMatchObject({ value: 0, n_items: 1, n_trials: 4 });
  });
  it("reports that trial by its own rate instead", () => {
    expect(summary().metrics["critic_unavailable_rate.corpus"]!.value).toBeCloseTo(0.2, 12);
  });
  it("keeps the per-item reduction and the paired per-item value consistent with the summary", () => {
    const [item] = itemSummaries(trials);
    expect(item).toMatchObject({
      n_trials: 5,
      n_counted: 4,
      verdict_counts: { approved: 4, unavailable: 1 },
      disagreement: 0,
      unanimous: true,
      modal_verdict: "approved",
    });
    expect(itemValues({ item: groupTrials(trials)[0]!, fixture: undefined, control: undefined })).toMatchObject({
      engine_flip_rate: 0,
      "critic_unavailable_rate.corpus": 0.2,
      planner_unavailable_rate: 0,
      trial_error_rate: 0,
      // The trial whose critic was unavailable escalated: failing closed, no fail-open approval.
      fail_open_approval: 0,
      engine_gate_disagreement: 0,
    });
  });
});
