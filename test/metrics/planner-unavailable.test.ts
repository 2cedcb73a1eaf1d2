/**
 * A planner that gives no valid plan after its retries (a dead endpoint, a model that cannot follow
 * the format) escalates the goal `planner_unavailable`: an outage, reported by its own rate and kept
 * out of engine verdict agreement, like an unavailable critic (docs/design.md §10, METHODOLOGY.md §4.9).
 */
import { describe, expect, it } from "vitest";
import { summarize } from "../../src/metrics/summary.ts";
import { engineTrial, engineTrials } from "./builders.ts";

// g1: three approved, two planner outages; g2: five approved.
const trials = [
  ...engineTrials("g1", "AAA"),
  engineTrial("g1", 3, "escalated", { reasons: ["planner_unavailable"] }),
  engineTrial("g1", 4, "escalated", { reasons: ["planner_unavailable"] }),
  ...engineTrials("g2", "AAAAA"),
];
const summary = summarize({ trials, fixtures: [], goals: [] }, { seed: 1, bootstrapReps: 50 });

describe("planner_unavailable_rate", () => {
  it("is the mean over goals of each goal's share of planner outages", () => {
    expect(summary.metrics.planner_unavailable_rate).toMatchObject({ n_items: 2, n_trials: 10 });
    expect(summary.metrics.planner_unavailable_rate!.value).toBeCloseTo((2 / 5 + 0) / 2, 12);
  });
  it("keeps the outages out of engine_flip_rate: the counted trials of both goals agree", () => {
    expect(summary.metrics.engine_flip_rate).toMatchObject({ value: 0, n_items: 2, n_trials: 8 });
  });
});
