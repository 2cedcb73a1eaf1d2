import { describe, expect, it } from "vitest";
import { summarize } from "../../src/metrics/summary.ts";
import { itemSummaries } from "../../src/metrics/items.ts";
import { gwetAC1, krippendorffAlphaNominal } from "../../src/stats/agreement.ts";
import { studentTQuantile } from "../../src/stats/distributions.ts";
import { boundaryTrial, boundaryTrials, engineTrials, finding } from "./builders.ts";

const run = (trials: Parameters<typeof summarize>[0]["trials"]) => summarize({ trials, fixtures: [], goals: [] }, { seed: 1, bootstrapReps: 200 });

describe("label_flip_rate", () => {
  // Q = 0, 0.4, 0.6, 0 → mean 0.25; the unavailable trial of `e` is left out, so `e` is 4/0 (Q = 0).
  const trials = [
    ...boundaryTrials("a", "BBBBB"),
    ...boundaryTrials("b", "BBBBP"),
    ...boundaryTrials("c", "BBBPP"),
    ...boundaryTrials("d", "PPPPP"),
    ...boundaryTrials("e", "BBBBU"),
    ...boundaryTrials("f", "BU"),
  ];
  it("is the mean of Q_i over items with two or more counted trials, with the clustered t-interval", () => {
    const m = run(trials).metrics.label_flip_rate!;
    const q = [0, 0.4, 0.6, 0, 0];
    const mean = 0.2;
    const sd = Math.sqrt(q.reduce((s, v) => s + (v - mean) ** 2, 0) / 4);
    expect(m.value).toBeCloseTo(mean, 12);
    expect(m.ci_high).toBeCloseTo(mean + studentTQuantile(0.975, 4) * (sd / Math.sqrt(5)), 10);
    expect(m.ci_low).toBe(0); // clipped: a rate cannot go below 0
    expect(m).toMatchObject({ n_items: 5, n_trials: 24, interval: "t_clustered" });
  });
  it("reports the per-item reduction baselines pair on", () => {
    const byId = Object.fromEntries(itemSummaries(trials).map((s) => [s.item_id, s]));
    expect(byId.c).toMatchObject({ n_trials: 5, n_counted: 5, disagreement: expect.closeTo(0.6, 12), modal_verdict: "block", unanimous: false });
    expect(byId.e).toMatchObject({ verdict_counts: { block: 4, unavailable: 1 }, n_counted: 4, disagreement: 0, unanimous: true });
    expect(byId.f).toMatchObject({ disagreement: null, n_counted: 1 });
  });
  it("is null with its counts when no item has two counted trials", () => {
    expect(run(boundaryTrials("x", "BUU")).metrics.label_flip_rate).toMatchObject({ value: null, ci_low: null, n_items: 0, n_trials: 0 });
  });
});

describe("engine_flip_rate", () => {
  it("uses corpus status, leaving error trials out", () => {
    const m = run([...engineTrials("g1", "AAEXX"), ...engineTrials("g2", "EEEE")]).metrics.engine_flip_rate!;
    // g1: 2 approved, 1 escalated → Q = 1 − 2/6 = 2/3; g2: 0.
    expect(m.value).toBeCloseTo(1 / 3, 12);
    expect(m).toMatchObject({ n_items: 2, n_trials: 7 });
  });
});

describe("evidence_drift_rate", () => {
  it("is 1 − mean pairwise Jaccard of cited tasks and claim kinds among trials with the modal verdict", () => {
    const fa = finding({ task: "a", tasks: ["a"] });
    const fb = finding({ task: "b", tasks: ["b"] });
    const trials = [
      boundaryTrial("x", 0, "block", { findings: [fa] }),
      boundaryTrial("x", 1, "block", { findings: [fa] }),
      boundaryTrial("x", 2, "block", { findings: [fb] }),
      // the pass trial disagrees with the modal verdict: it is a flip, not drift
      boundaryTrial("x", 3, "pass", { findings: [] }),
    ];
    // signatures {task:a, claim:misordered} ×2 and {task:b, claim:misordered}: J = 1, 1/3, 1/3.
    const s = run(trials);
    expect(s.metrics.evidence_drift_rate!.value).toBeCloseTo(1 - (1 + 2 / 3) / 3, 12);
    expect(s.metrics.evidence_drift_rate).toMatchObject({ n_items: 1, n_trials: 3 });
    expect(s.metrics["evidence_drift_rate.unanimous"]).toMatchObject({ value: null, n_items: 0 });
  });
  it("counts two trials with no findings as identical (J(∅, ∅) = 1)", () => {
    expect(run(boundaryTrials("y", "PP")).metrics.evidence_drift_rate!.value).toBe(0);
  });
});

describe("chance-corrected agreement on the boundary set", () => {
  it("equals α and AC1 of the item verdict counts, with a cluster-bootstrap interval", () => {
    const trials = [...boundaryTrials("a", "BBBBB"), ...boundaryTrials("b", "BBBBP"), ...boundaryTrials("c", "PPPPP"), ...boundaryTrials("d", "PPPPB")];
    const counts = [
      [5, 0],
      [4, 1],
      [0, 5],
      [1, 4],
    ];
    const s = run(trials);
    expect(s.metrics.critic_alpha_nominal!.value).toBeCloseTo(krippendorffAlphaNominal(counts)!, 12);
    expect(s.metrics.critic_ac1!.value).toBeCloseTo(gwetAC1(counts, 2)!, 12);
    expect(s.metrics.critic_alpha_nominal).toMatchObject({ n_items: 4, n_trials: 20, interval: "cluster_bootstrap" });
    expect(s.metrics.critic_alpha_nominal!.ci_low).not.toBeNull();
  });
});

describe("uncounted outcomes", () => {
  it("labels a boundary trial with status error as error, not as an unavailable critic", () => {
    const errored = { ...boundaryTrial("z", 1, "pass"), status: "error" as const, critic_verdict: null };
    const [summary] = itemSummaries([boundaryTrial("z", 0, "block"), errored]);
    expect(summary).toMatchObject({ verdict_counts: { block: 1, error: 1 }, n_counted: 1 });
    const s = run([boundaryTrial("z", 0, "block"), errored]);
    expect(s.metrics.critic_unavailable_rate!.value).toBe(0);
    expect(s.metrics.trial_error_rate!.value).toBe(0.5);
  });
});
