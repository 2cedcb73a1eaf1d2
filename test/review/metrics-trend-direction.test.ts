/**
 * METHODOLOGY.md §8: the one-sided CUSUM watches the harmful direction: upward for lower-is-better
 * metrics. Krippendorff's α and Gwet's AC1 are higher-is-better (agreement), so a persistent drop
 * in them is the drift to catch, and a rise must not raise a CUSUM alert.
 */
import { describe, expect, it } from "vitest";
import type { Snapshot } from "../../harness/baseline/schema.ts";
import { trend } from "../../harness/baseline/trend.ts";

const Z = 1.959963984540054;

function snapshot(name: string, metric: string, value: number): Snapshot {
  const half = 0.02 * Z; // σ0 = 0.02
  return {
    schema_version: 1,
    kind: "fieldtest-snapshot",
    name,
    run_id: name,
    config_hash: null,
    seed: 0,
    started_at: null,
    corpus_hash: null,
    gate_versions: {},
    canary_passed: true,
    decision_context: {},
    trials_per_item: 5,
    error_trials: 0,
    total_trials: 200,
    metrics: { [metric]: { value, ci_low: value - half, ci_high: value + half, n_items: 40, n_trials: 200 } },
    items: [],
  };
}

const firstCusum = (metric: string, base: number, value: number) => {
  const runs = Array.from({ length: 16 }, (_, i) => snapshot(`r${i}`, metric, value));
  const points = trend(runs, snapshot("baseline", metric, base)).metrics[0]!.points;
  return points.findIndex((p) => p.alerts.includes("cusum")) + 1;
};

describe("trend CUSUM direction", () => {
  it("alerts on a persistent 1σ drop of a higher-is-better agreement coefficient (critic_ac1, critic_alpha_nominal)", () => {
    expect(firstCusum("critic_ac1", 0.7, 0.68)).toBe(10);
    expect(firstCusum("critic_alpha_nominal", 0.7, 0.68)).toBe(10);
  });
  it("stays quiet when agreement improves", () => {
    expect(firstCusum("critic_ac1", 0.7, 0.72)).toBe(0);
  });
  it("still alerts upward on a lower-is-better rate", () => {
    expect(firstCusum("label_flip_rate", 0.1, 0.12)).toBe(10);
    expect(firstCusum("label_flip_rate", 0.1, 0.08)).toBe(0);
  });
});
