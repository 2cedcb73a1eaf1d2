import { describe, expect, it } from "vitest";
import { compareSnapshots } from "../../harness/baseline/compare.ts";
import type { Snapshot, SnapshotItem } from "../../harness/baseline/schema.ts";
import { trend } from "../../harness/baseline/trend.ts";
import { buildSnapshot } from "../../harness/baseline/snapshot.ts";
import { makeFixture, makeManifest, makeTrials, type ItemSpec } from "./builders.ts";

const IDS = Array.from({ length: 10 }, (_, i) => `seeded-${i}`);
const FIXTURES = IDS.map((id) => makeFixture(id, true));

function run(verdicts: (i: number) => string[]): Snapshot {
  const specs: ItemSpec[] = IDS.map((id, i) => ({ suite: "boundary", id, verdicts: verdicts(i) }));
  return buildSnapshot({ name: "r", manifest: makeManifest(specs), trials: makeTrials(specs), fixtures: FIXTURES, metrics: {} });
}

const BLOCK = ["block", "block", "block", "block", "block"];
const PASS = ["pass", "pass", "pass", "pass", "pass"];

describe("compare (model swap)", () => {
  it("counts McNemar's discordant items and tests them exactly", () => {
    // 7 items flip block → pass, 1 flips pass → block: methodology-notes golden value p = 0.0703125.
    const b = run((i) => (i < 7 ? BLOCK : i === 7 ? PASS : BLOCK));
    const a = run((i) => (i < 7 ? PASS : i === 7 ? BLOCK : BLOCK));
    const c = compareSnapshots(a, b, { reps: 200, seed: 1 });
    const s = c.suites[0]!;
    expect(s.mcnemar).toMatchObject({ b: 1, c: 7, method: "exact" });
    expect(s.mcnemar.p).toBeCloseTo(0.0703125, 10);
    expect(s.transitions).toEqual({ "block → pass": 7, "pass → block": 1, "block → block": 2 });
    expect(s.changed_items).toHaveLength(8);
  });

  it("finds no excess disagreement between identical runs and a large one after a swap", () => {
    const noisy = (i: number) => (i % 2 ? ["block", "block", "pass", "block", "pass"] : BLOCK);
    const same = compareSnapshots(run(noisy), run(noisy), { reps: 500, seed: 1 }).suites[0]!.excess_disagreement;
    expect(same.statistic).toBeLessThanOrEqual(0);
    expect(same.p!).toBeGreaterThan(0.5);
    const swapped = compareSnapshots(run(() => PASS), run(() => BLOCK), { reps: 500, seed: 1 }).suites[0]!.excess_disagreement;
    expect(swapped.statistic).toBeCloseTo(1, 10);
    expect(swapped.p!).toBeLessThan(0.01);
  });

  it("gives paired metric deltas with intervals", () => {
    const c = compareSnapshots(run(() => ["pass", "block", "block", "block", "block"]), run(() => BLOCK), { reps: 100 });
    const uc = c.metrics.find((m) => m.metric === "underclaim_approvals")!;
    expect(uc.delta).toBeCloseTo(0.2, 10);
    expect(uc.ci_low).toBeCloseTo(0.2, 10); // every item moved by exactly 0.2: no spread
    expect(uc.n_items).toBe(10);
  });
});

function metricSnapshot(name: string, value: number, half: number): Snapshot {
  const item: SnapshotItem[] = [];
  return {
    ...run(() => BLOCK),
    name,
    run_id: name,
    items: item,
    metrics: { underclaim_approvals: { value, ci_low: value - half, ci_high: value + half, n_items: 40, n_trials: 200 } },
  };
}

describe("trend (drift)", () => {
  const z = 1.959963984540054;
  const base = metricSnapshot("baseline", 0.1, 0.02 * z); // σ0 = 0.02

  it("stays quiet while runs sit at the baseline", () => {
    const runs = [0.1, 0.1, 0.1, 0.1, 0.1, 0.1].map((v, i) => metricSnapshot(`r${i}`, v, 0.02 * z));
    const t = trend(runs, base, 3);
    expect(t.alerts).toEqual([]);
    expect(t.metrics[0]!.reference).toMatchObject({ source: "baseline", mu0: 0.1 });
    expect(t.metrics[0]!.reference.sigma0).toBeCloseTo(0.02, 10);
  });

  it("accumulates a persistent 1σ shift: CUSUM alerts at run 10, EWMA at run 14", () => {
    // z = 1 per run. CUSUM grows by 1 − k = 0.5 per run and crosses h = 4.77 at the tenth run.
    // EWMA E_t = 1 − 0.8^t crosses 2.86·√(0.2/1.8·(1 − 0.8^{2t})) ≈ 0.953 first at t = 14.
    const runs = Array.from({ length: 16 }, (_, i) => metricSnapshot(`r${i}`, 0.12, 0.02 * z));
    const m = trend(runs, base).metrics[0]!;
    expect(m.points.map((p) => p.cusum)).toEqual(m.points.map((_, i) => expect.closeTo(0.5 * (i + 1), 9)));
    const first = (chart: string) => m.points.findIndex((p) => p.alerts.includes(chart as never)) + 1;
    expect(first("cusum")).toBe(10);
    expect(first("ewma")).toBe(14);
  });

  it("reports the trailing-window caveat and uses the first run as reference without a baseline", () => {
    const runs = [0.1, 0.11, 0.09, 0.1, 0.3].map((v, i) => metricSnapshot(`r${i}`, v, 0.02 * z));
    const t = trend(runs, null, 3);
    expect(t.caveat).toContain("5.2%");
    expect(t.metrics[0]!.reference.source).toBe("first_run");
    expect(t.metrics[0]!.points[4]!.alerts).toContain("trailing_t");
  });
});
