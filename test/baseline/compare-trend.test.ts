import { describe, expect, it } from "vitest";
import { compareSnapshots } from "../../harness/baseline/compare.ts";
import type { Snapshot } from "../../src/formats/snapshot.ts";
import { trend } from "../../harness/baseline/trend.ts";
import { blockerKeyCell, defectProfile } from "../../harness/baseline/profile.ts";
import { formatTrend } from "../../harness/cli/commands/trend.ts";
import { InputError } from "../../src/formats/input-error.ts";
import { makeFixture, makeSnapshot, metricSnapshot, type ItemSpec } from "./builders.ts";

const IDS = Array.from({ length: 10 }, (_, i) => `seeded-${i}`);
const FIXTURES = IDS.map((id) => makeFixture(id, true));

function run(verdicts: (i: number) => string[], patch?: Parameters<typeof makeSnapshot>[2]): Snapshot {
  const specs: ItemSpec[] = IDS.map((id, i) => ({ suite: "boundary", id, verdicts: verdicts(i) }));
  return makeSnapshot(specs, FIXTURES, patch);
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
  });

  it("lists the changed items with their per-item exact test and names what differs between A and B", () => {
    const b = run(() => BLOCK);
    const a = run(
      (i) => (i < 2 ? PASS : BLOCK),
      (m) => void ((m.roles.critic.model = "critic-2"), (m.config.seed = 9)),
    );
    const c = compareSnapshots(a, b, { reps: 200, seed: 1 });
    expect(c.differences.map((d) => d.part)).toEqual(["run seed", "critic.model"]);
    expect(c.suites[0]!.changed_items).toEqual([
      {
        item: "boundary/seeded-0",
        a: { pass: 5 },
        b: { block: 5 },
        p: expect.closeTo(2 / 252, 12),
        p_holm: expect.any(Number),
        beyond_noise: false,
        causes: ["critic.model"],
      },
      {
        item: "boundary/seeded-1",
        a: { pass: 5 },
        b: { block: 5 },
        p: expect.closeTo(2 / 252, 12),
        p_holm: expect.any(Number),
        beyond_noise: false,
        causes: ["critic.model"],
      },
    ]);
  });

  it("reads 0 excess disagreement for a run compared with itself, and a large one after a swap", () => {
    const noisy = run((i) => (i % 2 ? ["block", "block", "pass", "block", "pass"] : BLOCK));
    const same = compareSnapshots(noisy, noisy, { reps: 500, seed: 1 }).suites[0]!.excess_disagreement;
    expect(same).toMatchObject({ statistic: 0, p: 1, same_run: true });
    const swapped = compareSnapshots(
      run(() => PASS),
      run(
        () => BLOCK,
        (m) => void (m.run_id = "other"),
      ),
      { reps: 500, seed: 1 },
    ).suites[0]!.excess_disagreement;
    expect(swapped.statistic).toBeCloseTo(1, 10);
    expect(swapped.p!).toBeLessThan(0.01);
    expect(swapped.same_run).toBe(false);
  });

  it("gives paired metric deltas with intervals", () => {
    const c = compareSnapshots(
      run(() => ["pass", "block", "block", "block", "block"]),
      run(() => BLOCK),
      { reps: 100 },
    );
    const uc = c.metrics.find((m) => m.metric === "critic_miss_rate")!;
    expect(uc.delta).toBeCloseTo(0.2, 10);
    expect(uc.n_items).toBe(10);
    // Every item moved by exactly 0.2: no spread, so the t-interval would have zero width. The
    // interval is recovered from the two runs' own (MOVER), never a certainty the trials lack.
    const [a, b] = [run(() => ["pass", "block", "block", "block", "block"]).metrics.critic_miss_rate!, run(() => BLOCK).metrics.critic_miss_rate!];
    expect(uc.ci_low).toBeCloseTo(0.2 - Math.hypot(0.2 - a.ci_low!, b.ci_high! - 0), 12);
    expect(uc.ci_high).toBeCloseTo(0.2 + Math.hypot(a.ci_high! - 0.2, 0 - b.ci_low!), 12);
    expect(uc.ci_high! - uc.ci_low!).toBeGreaterThan(0.1);
    // A rate at 0 in every item of both runs: the interval spans the two runs' exact upper bounds, never [0, 0].
    const none = c.metrics.find((m) => m.metric === "critic_unavailable_rate")!;
    const bound = run(() => BLOCK).metrics.critic_unavailable_rate!.ci_high!;
    expect(bound).toBeGreaterThan(0);
    expect(none).toMatchObject({ delta: 0, ci_low: -bound, ci_high: bound });
    // Paired on 9 of B's 10 items: B's own interval is over an item the pairs lack, so none is recovered from it.
    const nine = makeSnapshot(
      IDS.slice(0, 9).map((id) => ({ suite: "boundary" as const, id, verdicts: BLOCK })),
      FIXTURES,
    );
    expect(
      compareSnapshots(
        nine,
        run(() => BLOCK),
        { reps: 100 },
      ).metrics.find((m) => m.metric === "critic_unavailable_rate"),
    ).toMatchObject({ delta: 0, n_items: 9, ci_low: null, ci_high: null });
  });
});

describe("compare's verdict and the defect-family profile", () => {
  it("pairs every summary metric: ratios by their items' counts, agreement by a paired bootstrap, per-trial rates by Mantel–Haenszel", () => {
    const c = compareSnapshots(
      run(
        (i) => (i < 5 ? PASS : BLOCK),
        (m) => void (m.run_id = "a"),
      ),
      run(() => BLOCK),
      { reps: 200, seed: 1 },
    );
    const method = Object.fromEntries(c.metrics.map((m) => [m.metric, m.method]));
    expect(method).toMatchObject({
      critic_miss_rate: "mantel_haenszel",
      label_flip_rate: "paired_t",
      downgrade_rate: "delta_method",
      critic_ac1: "cluster_bootstrap",
      invalid_output_rate: "delta_method",
    });
    // Every summary metric of either run has a row: paired, or a reason.
    expect(c.metrics.map((m) => m.metric).sort()).toEqual(expect.arrayContaining(Object.keys(run(() => BLOCK).metrics)));
    expect(c.metrics.every((m) => m.method !== null || m.note !== null)).toBe(true);
    // Five of ten fixtures now always missed: 25 of 50 trials against 0, beyond noise after Holm; the cause is not recorded.
    const miss = c.metrics.find((m) => m.metric === "critic_miss_rate")!;
    expect(miss).toMatchObject({ delta: expect.closeTo(0.5, 12), beyond_noise: true });
    expect(c.verdict).toMatchObject({ differs: true, causes: [] });
    expect(c.verdict.line).toMatch(
      /^B differs from A on .*critic_miss_rate \(0 -> 0\.5, Δ 0\.5, Holm p [^)]+\).*; no recorded configuration difference explains it$/,
    );
  });

  it("pairs by the catalogue: a metric without per-item values, or one it does not know, has a row saying why it is not paired", () => {
    const withSuiteMetrics = (s: Snapshot): Snapshot => ({
      ...s,
      metrics: {
        ...s.metrics,
        security_flawed_blocked: { value: 1, ci_low: 0.9, ci_high: 1, n_items: 4, n_trials: 20 },
        retired_metric: { value: 0.1, ci_low: null, ci_high: null, n_items: 4, n_trials: 20 },
      },
    });
    const c = compareSnapshots(
      withSuiteMetrics(
        run(
          () => BLOCK,
          (m) => void (m.run_id = "a"),
        ),
      ),
      withSuiteMetrics(run(() => BLOCK)),
      { reps: 200, seed: 1 },
    );
    const row = (name: string) => c.metrics.find((m) => m.metric === name)!;
    expect(row("security_flawed_blocked")).toMatchObject({
      a: 1,
      b: 1,
      method: null,
      p: null,
      note: "it has no per-item value (a figure of the whole run): not paired; gate it with a floor",
    });
    expect(row("retired_metric")).toMatchObject({ method: null, note: expect.stringContaining("not a metric of this version's catalogue") });
    // A corpus metric on a boundary-only run: its base has no item in either run.
    expect(row("engine_flip_rate")).toMatchObject({ method: null, note: expect.stringContaining("none is in its base") });
  });

  it("reads no difference beyond noise for a run against a rerun of itself, and takes no share of α for what never varied", () => {
    const noisy = (seed: number) =>
      run(
        (i) => (i % 2 ? ["block", "pass", "block", "block", "block"] : BLOCK),
        (m) => void ((m.run_id = `r${seed}`), (m.config.seed = seed)),
      );
    const c = compareSnapshots(noisy(1), noisy(2), { reps: 200, seed: 1 });
    expect(c.verdict).toMatchObject({ differs: false, metrics: [], causes: [] });
    expect(c.verdict.line).toMatch(/^no difference beyond noise \(\d+ metrics paired, Holm at 0\.05\)$/);
    expect(c.metrics.find((m) => m.metric === "critic_unavailable_rate")).toMatchObject({ p: null, note: "no variation in either run: no test" });
  });

  it("files blocker keys by origin and family, and tests whether two runs' profiles have the same shape", () => {
    expect(blockerKeyCell("rollback_present:rollback_missing:apply:rollback")).toEqual({ origin: "gate", family: "weak_rollback" });
    expect(blockerKeyCell("critic:unsafe_sequencing:step_1:misordered:a:b")).toEqual({ origin: "critic", family: "unsafe_sequencing" });
    expect(blockerKeyCell("pack.security:open_port:t:x")).toEqual({ origin: "gate", family: "pack" });
    const goals = (key: (i: number) => string) =>
      Array.from({ length: 12 }, (_, i) => ({ suite: "corpus" as const, id: `g${i}`, verdicts: ["escalated", "escalated"], keys: [[key(i)], [key(i)]] }));
    const gate = "rollback_present:rollback_missing:t:rollback";
    const critic = "critic:unsafe_sequencing:t:x";
    const same = defectProfile(
      makeSnapshot(
        goals(() => gate),
        [],
      ),
      makeSnapshot(
        goals(() => gate),
        [],
      ),
      { reps: 500, seed: 1 },
    );
    expect(same).toMatchObject({ n_goals: 12, total: { a: 1, b: 1, delta: 0 }, distance: { statistic: 0 } });
    expect(same.distance.p).toBe(1);
    // The same number of blockers, each now the critic's on sequencing: the level is unchanged, the shape is not.
    const moved = defectProfile(
      makeSnapshot(
        goals(() => critic),
        [],
      ),
      makeSnapshot(
        goals(() => gate),
        [],
      ),
      { reps: 500, seed: 1 },
    );
    expect(moved.total.delta).toBe(0);
    expect(moved.cells.map((x) => `${x.origin} ${x.family} ${x.b} -> ${x.a}`)).toEqual(["critic unsafe_sequencing 0 -> 1", "gate weak_rollback 1 -> 0"]);
    expect(moved.distance.statistic).toBe(1);
    expect(moved.distance.p!).toBeLessThan(0.01);
  });
});

// A five-run baseline of one metric: mean 0.1, SD 0.0158 (scipy 1.17 for the known answers below).
const BASE_RUNS = [0.1, 0.12, 0.08, 0.11, 0.09];
const baseline = metricSnapshot("baseline", { label_flip_rate: 0.1 }, { label_flip_rate: BASE_RUNS });
const runsOf = (values: number[], metric = "label_flip_rate") => values.map((v, i) => metricSnapshot(`r${i}`, { [metric]: v }));

describe("trend (drift)", () => {
  it("refuses a run given twice, or one the baseline pools: the charts assume independent runs", () => {
    const [a, b] = runsOf([0.1, 0.11]);
    expect(() => trend([a!, b!, a!], baseline)).toThrow(/^command line: RUNS\[2\]: run r0 is given twice: the charts assume independent runs$/);
    const pooled = metricSnapshot("base", { label_flip_rate: 0.1 }, { label_flip_rate: BASE_RUNS });
    const own = { ...a!, runs: [pooled.runs[1]!] };
    expect(() => trend([b!, own], pooled)).toThrow(/^command line: RUNS\[1\]: run base-1 is one of the baseline's runs: it would be judged against itself$/);
    expect(trend([a!, b!], baseline).runs).toHaveLength(2);
  });

  it("stays quiet while runs sit within the baseline's between-run spread, judged against the baseline alone", () => {
    const t = trend(runsOf([0.1, 0.115, 0.085, 0.1, 0.105, 0.095, 0.12, 0.08]), baseline);
    expect(t.alerts).toEqual([]);
    expect(t.reference).toMatchObject({ source: "baseline", runs: 5 });
    expect(t.metrics[0]!.reference).toMatchObject({ n: 5, mean: expect.closeTo(0.1, 12), sd: expect.closeTo(0.0158114, 6) });
  });

  it("judges a run by its prediction t against the reference, whose own uncertainty is in the t (4 df here)", () => {
    const p = trend(runsOf([0.2]), baseline).metrics[0]!.points[0]!;
    expect(p.shift).toMatchObject({ test: "t", runs: 1, T: expect.closeTo(5.773503, 5), p: expect.closeTo(0.0044686, 6) });
    expect(p.alerts).toEqual(["shift"]);
  });

  it("keeps the reference fixed, so a sustained shift keeps alarming and never enters it", () => {
    const m = trend(runsOf([0.2, 0.2, 0.2]), baseline).metrics[0]!;
    expect(m.reference.n).toBe(5);
    expect(m.points.every((p) => p.alerts.includes("shift"))).toBe(true);
    expect(m.points.map((p) => p.sustained?.runs ?? null)).toEqual([null, 2, 3]);
    expect(m.episode).toMatchObject({ since: 0, first_alert: 0, last_value: 0.2, distance_sd: expect.closeTo(0.1 / 0.0158114, 4) });
  });

  it("prints one line per alarming metric: what, its family, since when, how far", () => {
    const text = formatTrend(trend(runsOf([0.1, 0.2, 0.2]), baseline, { headline: ["label_flip_rate"] }));
    expect(text.split("\n").filter((l) => l.startsWith("ALERT"))).toEqual([
      "ALERT label_flip_rate [headline] (worse up): since run 2:r1, first alarm run 2:r1; 0.2 vs reference 0.1 ± 0.0158 SD (+6.32 reference SD; z 2.84, t test; 5 runs); charts shift, sustained; alarming on the last run",
    ]);
    expect(text).toContain("1 metric(s) alarming (1 headline), 0 in control, 0 not tested");
  });

  it("runs Holm within each family, on the harmful side for the headline: two such metrics in one family share the correction, one in each does not", () => {
    const two = metricSnapshot("baseline", {}, { label_flip_rate: BASE_RUNS, evidence_drift_rate: BASE_RUNS });
    const runs = [metricSnapshot("r", { label_flip_rate: 0.2, evidence_drift_rate: 0.2 })];
    const together = trend(runs, two);
    expect(together.metrics.map((m) => m.points[0]!.shift!.p_holm)).toEqual([expect.closeTo(2 * 0.0044686, 6), expect.closeTo(2 * 0.0044686, 6)]);
    expect(together.alerts).toEqual([]);
    // A headline metric is tested on its harmful side (a rise): half the two-sided p.
    const apart = trend(runs, two, { headline: ["label_flip_rate"] });
    expect(apart.families).toEqual({ headline: ["label_flip_rate"], exploratory: ["evidence_drift_rate"] });
    expect(apart.metrics.map((m) => m.points[0]!.shift!.p_holm)).toEqual([expect.closeTo(0.0044686, 6), expect.closeTo(0.0044686 / 2, 6)]);
    expect(apart.alerts.map((a) => `${a.metric} ${a.family}`)).toEqual(["evidence_drift_rate exploratory", "label_flip_rate headline"]);
    // A headline metric that got better does not alarm.
    const better = trend([metricSnapshot("r", { label_flip_rate: 0.0, evidence_drift_rate: 0.1 })], two, { headline: ["label_flip_rate"] });
    expect(better.metrics[1]!.points[0]!.shift!.p_holm).toBeCloseTo(1 - 0.0044686 / 2, 6);
    expect(better.alerts).toEqual([]);
  });

  it("without a baseline, the first k runs are the fixed reference: not judged, and a shift after them cannot enter it", () => {
    const t = trend(runsOf([0.1, 0.12, 0.08, 0.11, 0.09, 0.2]), null, { referenceRuns: 5 });
    const pts = t.metrics[0]!.points;
    expect(pts.slice(0, 5).every((p) => p.reference_run && p.shift === null)).toBe(true);
    expect(pts[5]!.shift).toMatchObject({ test: "t", T: expect.closeTo(5.773503, 5) });
    expect(pts[5]!.alerts).toContain("shift");
    expect(t.reference).toMatchObject({ source: "first_runs", runs: 5 });
    // Three in-control runs, then a shift: every shifted run is judged against the same three.
    const shifted = trend(runsOf([0.1, 0.12, 0.08, 0.3, 0.3, 0.3]), null).metrics[0]!;
    expect(shifted.reference).toMatchObject({ n: 3, mean: expect.closeTo(0.1, 12) });
    expect(shifted.points.slice(3).map((p) => p.shift!.T)).toEqual([0, 0, 0].map(() => expect.closeTo(0.2 / (0.02 * Math.sqrt(4 / 3)), 9)));
    expect(() => trend(runsOf([0.1]), null, { referenceRuns: 1 })).toThrow("--reference-runs");
  });

  it("charts a metric at 0 in every baseline run against the exact bound of its events: 0 → 0.54% does not alarm, 0 → 1.35% does", () => {
    const zero = { value: 0, numerator: 0, denominator: 370 };
    const base = metricSnapshot("baseline", {}, { critic_unavailable_rate: [zero, zero, zero, zero, zero] });
    const at = (k: number) =>
      trend([metricSnapshot("r", { critic_unavailable_rate: { value: k / 370, numerator: k, denominator: 370 } })], base).metrics[0]!.points[0]!;
    expect(at(2)).toMatchObject({ shift: { test: "exact", p: expect.closeTo(1 / 36, 12) }, alerts: [] });
    expect(at(5)).toMatchObject({ shift: { test: "exact", p: expect.closeTo(6 ** -5, 12) }, alerts: ["shift"] });
  });

  it("judges a rate with few events by its counts: one more event after one in 25 runs is not a 20-SD jump", () => {
    const share = (k: number) => ({ value: k / 33, numerator: k, denominator: 33 });
    const rare = metricSnapshot("baseline", {}, { underclaim_approvals_majority: Array.from({ length: 25 }, (_, i) => share(i === 3 ? 1 : 0)) });
    const p = trend([metricSnapshot("r", { underclaim_approvals_majority: share(1) })], rare).metrics[0]!.points[0]!;
    // X ~ Binomial(2, 1/26): P(X ≥ 1) = 1 − (25/26)², two-sided 0.150; the t on these values would read T ≈ 4.7.
    expect(p).toMatchObject({ shift: { test: "exact", p: expect.closeTo(2 * (1 - (25 / 26) ** 2), 12) }, alerts: [] });
  });

  it("sees a shift too small for one run in the mean of the last runs (sustained; scipy 1.17)", () => {
    // 40 baseline runs at 0.1 ± 0.01, then runs at 0.125: T = 2.44 (p 0.019) for one run, 3.41 (p 0.0015) for the mean of two.
    const long = metricSnapshot("baseline", {}, { label_flip_rate: Array.from({ length: 40 }, (_, i) => (i % 2 ? 0.11 : 0.09)) });
    const t = trend(runsOf([0.125, 0.125, 0.125]), long);
    const pts = t.metrics[0]!.points;
    expect(pts.map((p) => p.shift!.T)).toEqual([2.438262, 2.438262, 2.438262].map((x) => expect.closeTo(x, 5)));
    expect(pts.map((p) => p.alerts)).toEqual([[], ["sustained"], ["sustained"]]);
    expect(pts[1]!.sustained).toMatchObject({ runs: 2, T: expect.closeTo(3.406926, 5), p: expect.closeTo(0.0015367, 6) });
    expect(pts[2]!.sustained).toMatchObject({ runs: 3, T: expect.closeTo(4.123811, 5), p: expect.closeTo(0.00018879, 7) });
    // Since: the first run of the window that first alarmed.
    expect(t.metrics[0]!.episode).toMatchObject({ since: 0, first_alert: 1, charts: ["sustained"] });
  });

  it("pairs a run with the reference item by item, on the reference runs' variance cluster by cluster or the run's own items', the more conservative (scipy 1.17)", () => {
    // Label flips: 5/0 is Q = 0, 4/1 is Q = 0.4, 3/2 is Q = 0.6.
    const ONE = ["block", "block", "block", "block", "pass"];
    const SPLIT = ["block", "block", "block", "pass", "pass"];
    const reference = (flips: (i: number, r: number) => boolean) =>
      [0, 1, 2].map((r) =>
        run(
          (i) => (flips(i, r) ? ONE : BLOCK),
          (m) => void ((m.run_id = `ref-${r}`), (m.config.seed = r)),
        ),
      );
    const candidate = (splits: (i: number) => boolean) =>
      run(
        (i) => (splits(i) ? SPLIT : BLOCK),
        (m) => void ((m.run_id = "candidate"), (m.config.seed = 9)),
      );
    const shift = (ref: Snapshot[], c: Snapshot) => trend([...ref, c], null, { metrics: ["label_flip_rate"] }).metrics[0]!.points[3]!.shift;
    // Item 2 flips in one reference run (0, 0.4, 0: variance 4/75), every item splits now: Δ = (9 × 0.6 + 0.6 − 0.4/3)/10 = 44/75.
    // One run's variance from the reference runs, (4/75)/10² on 2 df: T = Δ/√((1 + 1/3) · 4/7500) = 22, p 0.00206; the items alone
    // (T 44 on 9 df) would read far more.
    expect(
      shift(
        reference((i, r) => i === 2 && r === 1),
        candidate(() => true),
      ),
    ).toMatchObject({
      test: "paired",
      delta: expect.closeTo(44 / 75, 12),
      T: expect.closeTo(22, 9),
      p: expect.closeTo(0.0020597344216681827, 9),
      sd_run: expect.closeTo(Math.sqrt(4 / 7500), 12),
    });
    // Items 0-8 each flip in one reference run (18 df), items 0-3 split now: Δ = 0.12. The reference runs read T = 1.5 on 18 df
    // (p 0.151), the run's own items T = 1.2603 on 9 df (p 0.239): the items' test is kept.
    expect(
      shift(
        reference((i, r) => i < 9 && (i + r) % 3 === 0),
        candidate((i) => i < 4),
      ),
    ).toMatchObject({
      test: "paired",
      delta: expect.closeTo(0.12, 12),
      T: expect.closeTo(1.260252075625209, 9),
      p: expect.closeTo(0.23927242482697827, 9),
      sd_run: expect.closeTo(0.09521904571390467 / Math.sqrt(4 / 3), 9),
    });
  });

  it("judges a rate over trials by Fisher's exact test of its counts, whose variance every trial measures (scipy 1.17)", () => {
    // Critic misses: items 0-1 always, item 2 in one reference run of three (10, 15, 10 of 50 trials); now items 0-5 (30 of 50).
    const reference = [0, 1, 2].map((r) =>
      run(
        (i) => (i < 2 + (r % 2) ? PASS : BLOCK),
        (m) => void ((m.run_id = `ref-${r}`), (m.config.seed = r)),
      ),
    );
    const worse = run(
      (i) => (i < 6 ? PASS : BLOCK),
      (m) => void ((m.run_id = "worse"), (m.config.seed = 9)),
    );
    const m = trend([...reference, worse], null, { metrics: ["critic_miss_rate"] }).metrics[0]!;
    // The reference runs vary as sampling would: X² = 1.863 on 2 df, p 0.394.
    expect(m.reference).toMatchObject({ events: 35, units: 150, dispersion_p: expect.closeTo(0.393892590957108, 9) });
    // 30 of 50 against 35 of 150: P(X ≥ 30), X ~ Hypergeometric(200, 65, 50) = 3.0935e-6, two-sided twice that; mid-p z 4.629.
    const shift = m.points[3]!.shift!;
    expect(shift).toMatchObject({
      test: "fisher",
      delta: expect.closeTo(0.6 - 35 / 150, 12),
      T: null,
      z: expect.closeTo(4.6286588734353025, 6),
      sd_run: expect.closeTo(Math.sqrt(((65 / 200) * (135 / 200)) / 50), 12),
    });
    expect(shift.p / 6.186993341491128e-6).toBeCloseTo(1, 8);
    expect(m.points[3]!.alerts).toEqual(["shift"]);
  });

  it("leaves Fisher's test when a baseline's runs vary beyond sampling, whose between-run excess must be in the variance; three runs are too few to tell", () => {
    const misses = (k: number) => ({ value: k / 155, numerator: k, denominator: 155 });
    const candidate = [metricSnapshot("r", { critic_miss_rate: misses(30) })];
    // 10 40 12 38 11 misses of 155 (X² 49.7 on 4 df, scipy 1.17): the prediction t on the baseline's between-run SD judges the run.
    const uneven = trend(candidate, metricSnapshot("baseline", {}, { critic_miss_rate: [10, 40, 12, 38, 11].map(misses) })).metrics[0]!;
    expect(uneven.reference.dispersion_p).toBeCloseTo(4.2254732780424074e-10, 15);
    expect(uneven.points[0]!.shift).toMatchObject({ test: "t" });
    // 20 22 19 21 20 vary as sampling would (X² 0.294, p 0.990): Fisher's test of the counts.
    const even = trend(candidate, metricSnapshot("baseline", {}, { critic_miss_rate: [20, 22, 19, 21, 20].map(misses) })).metrics[0]!;
    expect(even.reference.dispersion_p).toBeCloseTo(0.9902276807522028, 9);
    expect(even.points[0]!.shift).toMatchObject({ test: "fisher" });
    // The first three runs of a history (0, 25, 0 of 50 misses) show it too, but a chance excess in three runs would turn most
    // rates away from their counts: they are judged by Fisher's test, and the excess is reported.
    const reference = [0, 1, 2].map((r) =>
      run(
        (i) => (r === 1 && i < 5 ? PASS : BLOCK),
        (m) => void ((m.run_id = `ref-${r}`), (m.config.seed = r)),
      ),
    );
    const next = run(
      (i) => (i < 3 ? PASS : BLOCK),
      (m) => void ((m.run_id = "next"), (m.config.seed = 9)),
    );
    const first = trend([...reference, next], null, { metrics: ["critic_miss_rate"] }).metrics[0]!;
    expect(first.reference.dispersion_p!).toBeLessThan(1e-12);
    expect(first.points[3]!.shift).toMatchObject({ test: "fisher" });
  });

  it("gives no share of α to a count test that cannot reach it: no event on either side (Tarone)", () => {
    const zero = { value: 0, numerator: 0, denominator: 370 };
    const two = metricSnapshot("baseline", {}, { label_flip_rate: BASE_RUNS, critic_unavailable_rate: [zero, zero, zero, zero, zero] });
    const t = trend([metricSnapshot("r", { label_flip_rate: 0.2, critic_unavailable_rate: zero })], two, {
      headline: ["label_flip_rate", "critic_unavailable_rate"],
    });
    const at = Object.fromEntries(t.metrics.map((m) => [m.metric, m.points[0]!.shift!]));
    // 0 of 370 against 0 of 1,850 can give no p below 1: the flip rate's one-sided p stands alone (Holm over 2 would double it).
    expect(at.critic_unavailable_rate).toMatchObject({ test: "exact", p: 1, attainable: { up: 1, down: 1 }, p_holm: 1 });
    expect(at.label_flip_rate!.p_holm).toBeCloseTo(0.0044686 / 2, 6);
    // With k events the smallest p is (1/6)^k: one event (1/6) cannot reach 0.005 and stays out; four (7.7e-4) can and share α.
    const withEvents = (k: number) =>
      Object.fromEntries(
        trend([metricSnapshot("r", { label_flip_rate: 0.2, critic_unavailable_rate: { value: k / 370, numerator: k, denominator: 370 } })], two, {
          headline: ["label_flip_rate", "critic_unavailable_rate"],
        }).metrics.map((m) => [m.metric, m.points[0]!.shift!.p_holm]),
      );
    expect(withEvents(1)).toEqual({ critic_unavailable_rate: 1, label_flip_rate: expect.closeTo(0.0044686 / 2, 6) });
    expect(withEvents(4)).toEqual({ critic_unavailable_rate: expect.closeTo(2 * 6 ** -4, 12), label_flip_rate: expect.closeTo(0.0044686 / 2, 6) });
  });

  it("names the harmful direction from the metric catalogue", () => {
    const t = trend([metricSnapshot("r", { critic_ac1: 0.7, label_flip_rate: 0.1, "blockers_per_goal.gate": 1 })], metricSnapshot("b", {}, {}));
    expect(Object.fromEntries(t.metrics.map((m) => [m.metric, m.worse]))).toEqual({
      "blockers_per_goal.gate": "either",
      critic_ac1: "down",
      label_flip_rate: "up",
    });
  });

  it("rejects an unknown --metrics name instead of charting nothing", () => {
    expect(() => trend(runsOf([0.1]), baseline, { metrics: ["label_flip_rate", "label_flip_rat"] })).toThrow(InputError);
    expect(() => trend(runsOf([0.1]), baseline, { metrics: ["label_flip_rat"] })).toThrow('--metrics: unknown metric "label_flip_rat"');
    expect(trend(runsOf([0.1]), baseline, { metrics: ["label_flip_rate"] }).metrics.map((m) => m.metric)).toEqual(["label_flip_rate"]);
  });

  it("runs the trailing window over the W runs before, Holm-corrected across metrics, flagged unreliable below W = 20", () => {
    const t = trend(runsOf([0.1, 0.11, 0.09, 0.1, 0.3]), null, { window: 4 });
    const last = t.metrics[0]!.points[4]!;
    expect(last.trailing).toMatchObject({ reliable: false });
    // Holm of one p is that p; beside a second charted metric the smaller p doubles.
    expect(last.trailing!.p_holm).toBe(last.trailing!.p);
    expect(last.trailing!.p_holm).toBeLessThan(0.005);
    // Below W = 20 it is a monitor: printed, never an alarm; at W = 20 it alarms.
    expect(last.alerts).not.toContain("trailing");
    const long = trend(runsOf([...Array.from({ length: 20 }, (_, i) => (i % 2 ? 0.11 : 0.09)), 0.3]), null, { window: 20 }).metrics[0]!.points[20]!;
    expect(long.trailing!.reliable).toBe(true);
    expect(long.alerts).toContain("trailing");
    const drift = [0.1, 0.11, 0.09, 0.1, 0.12];
    const two = trend(
      [0.1, 0.11, 0.09, 0.1, 0.3].map((v, i) => metricSnapshot(`r${i}`, { label_flip_rate: v, evidence_drift_rate: drift[i]! })),
      null,
      { window: 4 },
    );
    const at = Object.fromEntries(two.metrics.map((m) => [m.metric, m.points[4]!.trailing!]));
    const [small, large] = [at.label_flip_rate!, at.evidence_drift_rate!];
    expect(small.p).toBe(last.trailing!.p);
    expect(small.p).toBeLessThan(large.p);
    expect(small.p_holm).toBeCloseTo(Math.min(1, 2 * small.p), 12);
    expect(small.p_holm).toBeGreaterThan(small.p);
    expect(large.p_holm).toBeCloseTo(Math.max(small.p_holm, large.p), 12);
  });
});
