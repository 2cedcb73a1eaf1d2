import { describe, expect, it } from "vitest";
import { diffSnapshots } from "../../harness/baseline/diff.ts";
import { evaluateGate } from "../../harness/baseline/gate.ts";
import { gateJUnit } from "../../harness/baseline/junit.ts";
import { GatePolicySchema, policyProblem } from "../../harness/baseline/policy.ts";
import { buildSnapshot } from "../../harness/baseline/snapshot.ts";
import type { Manifest } from "../../harness/run/manifest.ts";
import { summarize } from "../../src/metrics/summary.ts";
import { makeFixture, makeManifest, makeTrials, type ItemSpec } from "./builders.ts";

const SEEDED = Array.from({ length: 12 }, (_, i) => `seeded-${i}`);
const CLEAN = Array.from({ length: 6 }, (_, i) => `clean-${i}`);
const FIXTURES = [...SEEDED.map((id) => makeFixture(id, true)), ...CLEAN.map((id) => makeFixture(id, false))];

/** Seeded fixtures block in all but `misses[i]` of their N trials; clean controls pass. */
function items(n: number, misses: (i: number) => number): ItemSpec[] {
  return [
    ...SEEDED.map((id, i) => ({ suite: "boundary" as const, id, verdicts: Array.from({ length: n }, (_, t) => (t < misses(i) ? "pass" : "block")) })),
    ...CLEAN.map((id) => ({ suite: "boundary" as const, id, verdicts: Array<string>(n).fill("pass") })),
  ];
}

function snapshot(specs: ItemSpec[], patch?: (m: Manifest) => void) {
  const trials = makeTrials(specs);
  const summary = summarize({ trials, fixtures: FIXTURES, goals: [] }, { seed: 0, bootstrapReps: 200 });
  return buildSnapshot({ name: "t", manifest: makeManifest(specs, patch), trials, fixtures: FIXTURES, metrics: summary.metrics });
}

const POLICY = GatePolicySchema.parse({
  version: 1,
  min_trials_per_item: 3,
  floors: [{ metric: "critic_unavailable_rate", max: 0.1 }],
  non_inferiority: [
    { metric: "underclaim_approvals", margin: 0.1 },
    { metric: "overclaim_rate", margin: 0.1 },
    { metric: "label_flip_rate", margin: 0.15 },
  ],
});

function gate(baseline: ReturnType<typeof snapshot>, candidate: ReturnType<typeof snapshot>) {
  return evaluateGate(POLICY, baseline, candidate, diffSnapshots(baseline, candidate, POLICY.alpha));
}

// A noisy-but-fine baseline: every third seeded fixture misses once in five trials.
const baseline = snapshot(items(5, (i) => (i % 3 === 0 ? 1 : 0)));

describe("release gate", () => {
  it("passes (exit 0) a run with the baseline's configuration and behaviour", () => {
    const r = gate(baseline, snapshot(items(5, (i) => (i % 3 === 0 ? 1 : 0))));
    expect(r.failed).toEqual([]);
    expect(r.decision).toBe("pass");
    expect(r.exit).toBe(0);
    const ni = r.checks.find((c) => c.name === "underclaim_approvals")!;
    expect(ni.delta).toMatchObject({ mean: 0, n: 12, upper: 0 });
  });

  it("fails (exit 1) a run whose under-claim rate clearly rose, naming the metric", () => {
    // The critic now misses 3 of 5 trials on every seeded fixture; the change is recorded (critic model).
    const r = gate(baseline, snapshot(items(5, () => 3), (m) => void (m.roles.critic.model = "worse-critic")));
    expect(r.decision).toBe("regression");
    expect(r.exit).toBe(1);
    expect(r.failed).toContain("underclaim_approvals");
    expect(r.failed).not.toContain("unexplained_deltas");
    const check = r.checks.find((c) => c.name === "underclaim_approvals")!;
    expect(check.delta!.mean).toBeCloseTo(0.6 - 4 * 0.2 / 12, 10);
    expect(check.message).toContain("underclaim_approvals regressed");
  });

  it("is inconclusive (exit 2) with one trial per item, saying how many are needed", () => {
    const r = gate(baseline, snapshot(items(1, () => 0)));
    expect(r.decision).toBe("inconclusive");
    expect(r.exit).toBe(2);
    expect(r.trials_needed).toBe(3);
    expect(r.checks.find((c) => c.name === "trials_per_item")!.outcome).toBe("inconclusive");
    // label_flip_rate needs two counted trials per item: unknown at N = 1, never a pass.
    expect(r.checks.find((c) => c.name === "label_flip_rate")!.outcome).toBe("inconclusive");
  });

  it("is an infrastructure error (exit 3) when the canary failed", () => {
    const r = gate(baseline, snapshot(items(5, (i) => (i % 3 === 0 ? 1 : 0)), (m) => void (m.canary = { ok: false, failures: ["x"], results: null })));
    expect(r.exit).toBe(3);
    expect(r.failed).toEqual(["canary"]);
  });

  it("fails on an unexplained delta even when every metric is non-inferior", () => {
    // One unanimous seeded fixture now passes every trial, with nothing recorded to explain it.
    const r = gate(baseline, snapshot(items(5, (i) => (i % 3 === 0 ? 1 : i === 1 ? 5 : 0))));
    expect(r.failed).toEqual(["unexplained_deltas"]);
    expect(r.exit).toBe(1);
  });

  it("writes JUnit XML with one testcase per check and the failures marked", () => {
    const r = gate(baseline, snapshot(items(5, () => 3), (m) => void (m.roles.critic.model = "worse-critic")));
    const xml = gateJUnit(r);
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>/);
    expect((xml.match(/<testcase /g) ?? []).length).toBe(r.checks.length);
    expect(xml).toContain('<testcase classname="fieldtest.gate.non_inferiority" name="underclaim_approvals">');
    expect(xml).toMatch(/<failure message="underclaim_approvals regressed/);
  });
});

describe("policy problems", () => {
  it("names a floor on an unknown metric and a margin on a metric without per-item values", () => {
    const floors = GatePolicySchema.parse({ version: 1, floors: [{ metric: "critic_unavailable_rate", max: 1 }, { metric: "underclaim_majority", max: 0 }] });
    expect(policyProblem(floors, baseline, baseline)).toEqual({ path: "floors[1].metric", message: '"underclaim_majority" is not a summary metric' });
    const ratio = GatePolicySchema.parse({ version: 1, non_inferiority: [{ metric: "unsupported_evidence_rate", margin: 0.1 }] });
    expect(policyProblem(ratio, baseline, baseline)?.path).toBe("non_inferiority[0].metric");
    expect(policyProblem(POLICY, baseline, baseline)).toBeNull();
  });
});
