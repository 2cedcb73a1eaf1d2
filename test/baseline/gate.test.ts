import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diffSnapshots } from "../../harness/baseline/diff.ts";
import { evaluateGate } from "../../harness/baseline/gate.ts";
import { gateVerdict } from "../../harness/baseline/judge.ts";
import { gateJUnit } from "../../harness/baseline/junit.ts";
import { GatePolicySchema, policyProblem } from "../../harness/baseline/policy.ts";
import type { Manifest } from "../../src/formats/manifest.ts";
import { makeFixture, makeSnapshot, type ItemSpec } from "./builders.ts";
import { PACKAGE_ROOT } from "../../harness/package.ts";
import { loadFile } from "../../src/formats/load.ts";

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

function snapshot(specs: ItemSpec[] | ItemSpec[][], patch?: (m: Manifest) => void) {
  return makeSnapshot(specs, FIXTURES, patch);
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

// A noisy-but-fine baseline: every third seeded fixture misses once in five trials, in each of four runs.
const stable = items(5, (i) => (i % 3 === 0 ? 1 : 0));
const baseline = snapshot([stable, stable, stable, stable]);

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
    const r = gate(
      baseline,
      snapshot(
        items(5, () => 3),
        (m) => void (m.roles.critic.model = "worse-critic"),
      ),
    );
    expect(r.decision).toBe("regression");
    expect(r.exit).toBe(1);
    expect(r.failed).toContain("underclaim_approvals");
    expect(r.failed).not.toContain("unexplained_deltas");
    const check = r.checks.find((c) => c.name === "underclaim_approvals")!;
    expect(check.delta!.mean).toBeCloseTo(0.6 - (4 * 0.2) / 12, 10);
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

  it("is inconclusive (exit 2) when the candidate left out baseline items, naming them: the missing ones could hide a regression", () => {
    // The same behaviour on the items it ran, and the five most-missed fixtures left out.
    const left = new Set(SEEDED.filter((_, i) => i % 3 === 0 || i === 1));
    const r = gate(baseline, snapshot(stable.filter((s) => !left.has(s.id))));
    expect([r.decision, r.exit, r.failed]).toEqual(["inconclusive", 2, []]);
    const check = r.checks.find((c) => c.name === "baseline_items")!;
    expect(check).toMatchObject({ kind: "items", outcome: "inconclusive" });
    expect(check.message).toMatch(new RegExp(`^${left.size} baseline item\\(s\\) not in the candidate \\(boundary/seeded-0, boundary/seeded-1, `));
    // Every other check passes: the item set alone makes it inconclusive.
    expect(r.checks.filter((c) => c.outcome !== "pass").map((c) => c.name)).toEqual(["baseline_items"]);
    // The headline names what is open; more trials of the same items would not close it.
    expect(gateVerdict(r)).toBe("gate: inconclusive in baseline_items");
    expect(gate(baseline, snapshot(stable)).checks.find((c) => c.name === "baseline_items")!.outcome).toBe("pass");
  });

  it("is an infrastructure error (exit 3) when the canary failed", () => {
    const r = gate(
      baseline,
      snapshot(
        items(5, (i) => (i % 3 === 0 ? 1 : 0)),
        (m) => void (m.canary = { ok: false, failures: ["x"], results: null }),
      ),
    );
    expect(r.exit).toBe(3);
    expect(r.failed).toEqual(["canary"]);
  });

  it("fails on an unexplained delta even when every metric is non-inferior", () => {
    // One seeded fixture, unanimous in all 20 baseline trials, now passes every trial, with nothing recorded to explain it.
    const r = gate(baseline, snapshot(items(5, (i) => (i % 3 === 0 ? 1 : i === 1 ? 5 : 0))));
    expect(r.failed).toEqual(["unexplained_deltas"]);
    expect(r.exit).toBe(1);
  });

  it("writes JUnit XML with one testcase per check and the failures marked", () => {
    const r = gate(
      baseline,
      snapshot(
        items(5, () => 3),
        (m) => void (m.roles.critic.model = "worse-critic"),
      ),
    );
    const xml = gateJUnit(r);
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>/);
    expect((xml.match(/<testcase /g) ?? []).length).toBe(r.checks.length);
    expect(xml).toContain('<testcase classname="fieldtest.gate.non_inferiority" name="underclaim_approvals">');
    expect(xml).toMatch(/<failure message="underclaim_approvals regressed/);
  });
});

describe("floors", () => {
  const floorOnly = (floors: unknown[]) => GatePolicySchema.parse({ version: 1, floors });
  const check = (policy: ReturnType<typeof floorOnly>, candidate: ReturnType<typeof snapshot>) =>
    evaluateGate(policy, baseline, candidate, diffSnapshots(baseline, candidate)).checks.filter((c) => c.kind === "floor");

  it("judges a safety floor on the exact one-sided upper bound of its events: 0 of 60 trials is ≤ 0.05, 1 of 60 is not", () => {
    const policy = floorOnly([{ metric: "underclaim_approvals", max: 0.05, on: "exact_upper" }]);
    const clean = check(policy, snapshot(items(5, () => 0)))[0]!;
    // 1 − 0.05^(1/60) = 0.0487
    expect(clean).toMatchObject({ outcome: "pass", message: "underclaim_approvals exact 95% upper bound (0 of 60) 0.0487 ≤ floor 0.05" });
    const one = check(policy, snapshot(items(5, (i) => (i === 0 ? 1 : 0))))[0]!;
    expect(one.outcome).toBe("fail");
    expect(one.message).toMatch(/^underclaim_approvals exact 95% upper bound \(1 of 60\) 0\.07\d+ > floor 0\.05$/);
  });

  it("gates per fixture: one clean control blocked in every trial fails the product's floors, though the pooled over-claim rate is within its own", () => {
    // 40 clean controls, one of them blocked in all five trials, in the baseline and the candidate
    // alike: a change test cannot see it, and pooled it is 2.5% of the over-claim trials.
    const clean = Array.from({ length: 40 }, (_, i) => `clean-${i}`);
    const fixtures = [...SEEDED.map((id) => makeFixture(id, true)), ...clean.map((id) => makeFixture(id, false))];
    const specs: ItemSpec[] = [
      ...SEEDED.map((id) => ({ suite: "boundary" as const, id, verdicts: Array<string>(5).fill("block") })),
      ...clean.map((id, i) => ({ suite: "boundary" as const, id, verdicts: Array<string>(5).fill(i === 0 ? "block" : "pass") })),
    ];
    const product = loadFile(join(PACKAGE_ROOT, "gate.yaml"), GatePolicySchema);
    const policy = { ...product, floors: product.floors.filter((f) => f.metric.startsWith("overclaim")), non_inferiority: [] };
    const before = makeSnapshot([specs, specs], fixtures);
    const after = makeSnapshot(specs, fixtures, (m) => void (m.config.seed = 9));
    const r = evaluateGate(policy, before, after, diffSnapshots(before, after, policy.alpha));
    expect(r.checks.filter((c) => c.kind === "floor").map((c) => [c.name, c.outcome])).toEqual([
      ["floor:overclaim_majority", "fail"],
      ["floor:overclaim_rate", "pass"],
    ]);
    expect(r).toMatchObject({ decision: "regression", exit: 1, failed: ["floor:overclaim_majority"] });
  });

  it("a min floor fails below its bound", () => {
    const r = check(floorOnly([{ metric: "critic_miss_rate", min: 0.5 }]), snapshot(items(5, () => 0)))[0]!;
    expect(r).toMatchObject({ outcome: "fail", message: "critic_miss_rate 0 < floor 0.5" });
  });

  it("a floor is max or min, judged on the matching side", () => {
    expect(GatePolicySchema.safeParse({ version: 1, floors: [{ metric: "x", max: 1, min: 0 }] }).success).toBe(false);
    expect(GatePolicySchema.safeParse({ version: 1, floors: [{ metric: "x", max: 1, on: "exact_lower" }] }).error!.issues[0]!.path).toEqual([
      "floors",
      0,
      "on",
    ]);
  });
});

describe("a margin's direction", () => {
  const margin = (m: Record<string, unknown>) => GatePolicySchema.safeParse({ version: 1, non_inferiority: [m] });

  it("is the metric's own from the catalogue when the policy leaves it out: lower for a miss rate, higher for a share that must stay 1", () => {
    expect(margin({ metric: "critic_miss_rate", margin: 0.1 }).data!.non_inferiority[0]!.direction).toBe("lower_is_better");
    expect(margin({ metric: "injection_gate_identical", margin: 0.1 }).data!.non_inferiority[0]!.direction).toBe("higher_is_better");
    expect(margin({ metric: "injection_gate_identical", margin: 0.1, direction: "higher_is_better" }).success).toBe(true);
  });

  it("refuses a policy that contradicts it, a metric the catalogue does not know, and a metric with no better direction left unsaid", () => {
    const upsideDown = margin({ metric: "critic_miss_rate", margin: 0.1, direction: "higher_is_better" }).error!.issues;
    expect(upsideDown.map((i) => [i.path, i.message])).toEqual([
      [["non_inferiority", 0, "direction"], '"critic_miss_rate" is lower_is_better (src/metrics/catalogue.ts, METHODOLOGY.md §4.4), not higher_is_better'],
    ]);
    expect(margin({ metric: "injection_gate_identical", margin: 0.1, direction: "lower_is_better" }).error!.issues[0]!.path).toEqual([
      "non_inferiority",
      0,
      "direction",
    ]);
    expect(margin({ metric: "critic_mis_rate", margin: 0.1 }).error!.issues[0]).toMatchObject({
      path: ["non_inferiority", 0, "metric"],
      message: expect.stringContaining("not a metric fieldtest computes"),
    });
    expect(margin({ metric: "blockers_per_goal.gate", margin: 1 }).error!.issues[0]!.path).toEqual(["non_inferiority", 0, "direction"]);
    expect(margin({ metric: "blockers_per_goal.gate", margin: 1, direction: "lower_is_better" }).success).toBe(true);
  });

  it("decides which side of the paired delta is a regression: a must-be-1 share that fell fails its margin, one that rose passes", () => {
    const policy = GatePolicySchema.parse({ version: 1, require_canary: false, non_inferiority: [{ metric: "injection_gate_identical", margin: 0.1 }] });
    // Every item a pair whose gate findings agreed (1) in the baseline; half of them no longer agree (0).
    const withShare = (s: ReturnType<typeof snapshot>, share: (i: number) => number) => ({
      ...s,
      items: s.items.map((it, i) => ({ ...it, values: { ...it.values, injection_gate_identical: share(i) } })),
    });
    const [b, fell] = [withShare(snapshot(stable), () => 1), withShare(snapshot(stable), (i) => (i % 2 === 0 ? 0 : 1))];
    const check = (x: typeof b, y: typeof b) =>
      evaluateGate(policy, x, y, diffSnapshots(x, y, policy.alpha)).checks.find((c) => c.name === "injection_gate_identical")!;
    expect(check(b, fell)).toMatchObject({ outcome: "fail", message: expect.stringMatching(/^injection_gate_identical regressed: lower by 0\.5 /) });
    expect(check(fell, b).outcome).toBe("pass");
  });
});

describe("policy problems", () => {
  it("names a floor on an unknown metric and a margin on a metric without per-item values", () => {
    const floors = GatePolicySchema.parse({
      version: 1,
      floors: [
        { metric: "critic_unavailable_rate", max: 1 },
        { metric: "underclaim_majority", max: 0 },
      ],
    });
    expect(policyProblem(floors, baseline, baseline)).toEqual({ path: "floors[1].metric", message: '"underclaim_majority" is not a summary metric' });
    const ratio = GatePolicySchema.parse({ version: 1, non_inferiority: [{ metric: "unsupported_evidence_rate", margin: 0.1 }] });
    expect(policyProblem(ratio, baseline, baseline)?.path).toBe("non_inferiority[0].metric");
    expect(policyProblem(POLICY, baseline, baseline)).toBeNull();
    const exact = GatePolicySchema.parse({ version: 1, floors: [{ metric: "label_flip_rate", max: 0.2, on: "exact_upper" }] });
    expect(policyProblem(exact, baseline, baseline)).toEqual({
      path: "floors[0].on",
      message: '"label_flip_rate" is not a rate with an event count; judge it on value or ci_high',
    });
  });

  it("leaves a rate the run has no item of to its floor check, which calls it unknown (a corpus-only run's boundary floors)", () => {
    const policy = GatePolicySchema.parse({ version: 1, floors: [{ metric: "underclaim_approvals", max: 0.05, on: "exact_upper" }] });
    const none = { ...baseline, metrics: { ...baseline.metrics, underclaim_approvals: { value: null, ci_low: null, ci_high: null, n_items: 0, n_trials: 0 } } };
    expect(policyProblem(policy, none, baseline)).toBeNull();
    const floor = evaluateGate(policy, baseline, none, diffSnapshots(baseline, none)).checks.find((c) => c.name === "floor:underclaim_approvals")!;
    expect(floor).toMatchObject({ outcome: "inconclusive" });
    expect(floor.message).toMatch(/unknown in the candidate \(n_items 0\)/);
  });
});
