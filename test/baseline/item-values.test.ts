import { describe, expect, it } from "vitest";
import { buildSnapshot } from "../../harness/baseline/snapshot.ts";
import { summarize } from "../../src/metrics/summary.ts";
import { makeCorpusGoal, makeFixture, makeManifest, makeTrials, type ItemSpec } from "./builders.ts";

const SPECS: ItemSpec[] = [
  { suite: "boundary", id: "s1", verdicts: ["block", "pass", "block", "unavailable", "block"] },
  { suite: "boundary", id: "s2", verdicts: ["pass", "pass", "block", "block", "block"] },
  { suite: "boundary", id: "s3", verdicts: ["block", "block", "block", "block", "block"] },
  { suite: "boundary", id: "c1", verdicts: ["pass", "block", "pass", "pass", "pass"] },
  { suite: "boundary", id: "c2", verdicts: ["pass", "pass", "pass", "unavailable", "unavailable"] },
  { suite: "corpus", id: "g1", verdicts: ["approved", "escalated", "approved", "error", "approved"] },
  { suite: "corpus", id: "g2", verdicts: ["approved", "approved", "approved", "approved", "approved"] },
];
const FIXTURES = [makeFixture("s1", true), makeFixture("s2", true), makeFixture("s3", true), makeFixture("c1", false), makeFixture("c2", false)];

describe("per-item values", () => {
  it("average to the summary metric of the same name (so paired deltas and the summary agree)", () => {
    const trials = makeTrials(SPECS);
    const summary = summarize({ trials, fixtures: FIXTURES, goals: [makeCorpusGoal("g1"), makeCorpusGoal("g2")] }, { seed: 0, bootstrapReps: 50 });
    const snap = buildSnapshot({
      name: "t",
      runs: [{ manifest: makeManifest(SPECS), trials, metrics: summary.metrics }],
      fixtures: FIXTURES,
      metrics: summary.metrics,
    });
    const names = [...new Set(snap.items.flatMap((i) => Object.keys(i.values)))].sort();
    expect(names).toEqual([
      "critic_miss_rate",
      "critic_miss_rate.gate_invisible",
      "critic_unavailable_rate",
      "critic_unavailable_rate.corpus",
      "critical_critic_misses",
      "critical_underclaims",
      "engine_flip_rate",
      "engine_gate_disagreement",
      "evidence_drift_rate",
      "evidence_drift_rate.unanimous",
      "fail_open_approval",
      "label_flip_rate",
      "overclaim_majority",
      "overclaim_rate",
      "planner_unavailable_rate",
      "trial_error_rate",
      "underclaim_approvals",
      "underclaim_approvals_any",
      "underclaim_approvals_majority",
    ]);
    for (const name of names) {
      const values = snap.items.map((i) => i.values[name]).filter((v): v is number => v !== null && v !== undefined);
      const mean = values.reduce((s, v) => s + v, 0) / values.length;
      expect(mean, name).toBeCloseTo(summary.metrics[name]!.value!, 12);
      expect(values.length, name).toBe(summary.metrics[name]!.n_items);
    }
    // Ratio metrics: the items' counts add up to the summary's numerator and denominator.
    const ratios = [...new Set(snap.items.flatMap((i) => Object.keys(i.ratios)))].sort();
    expect(ratios).toContain("downgrade_rate");
    expect(ratios).toContain("invalid_output_rate");
    for (const name of ratios) {
      const sum = (part: "num" | "den") => snap.items.reduce((s, i) => s + (i.ratios[name]?.[part] ?? 0), 0);
      expect([sum("num"), sum("den")], name).toEqual([summary.metrics[name]!.numerator, summary.metrics[name]!.denominator]);
    }
    // Known answers: under-claim (1/4 + 2/5 + 0)/3; over-claim (1/5 + 0/3)/2.
    expect(summary.metrics.underclaim_approvals!.value).toBeCloseTo((0.25 + 0.4) / 3, 12);
    expect(summary.metrics.overclaim_rate!.value).toBeCloseTo(0.1, 12);
  });
});
