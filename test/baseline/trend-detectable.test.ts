import { describe, expect, it } from "vitest";
import { detectableSummary, trend } from "../../harness/baseline/trend.ts";
import { formatTrend } from "../../harness/cli/commands/trend.ts";
import { detectableShifts } from "../../src/stats/detectable.ts";
import { hypergeometricTails } from "../../src/stats/exact.ts";
import { metricSnapshot } from "./builders.ts";

const counts = (k: number, n: number) => ({ value: k / n, numerator: k, denominator: n });
/** The committed sim baseline's critic misses per run (of 155): they vary as sampling would (dispersion p 0.0997), so Fisher's test judges them. */
const MISSES = [16, 18, 19, 20, 31, 22, 14, 15].map((k) => counts(k, 155));
const baseline = metricSnapshot(
  "baseline",
  {},
  {
    critic_miss_rate: MISSES,
    underclaim_approvals: [20, 22, 18, 21, 19, 20, 23, 17].map((k) => counts(k, 165)),
    critic_unavailable_rate: Array.from({ length: 8 }, () => counts(0, 370)),
    critical_critic_misses: [10, 12, 11, 9, 10, 12, 11, 10].map((k) => counts(k, 85)),
    label_flip_rate: [0.1, 0.12, 0.08, 0.11, 0.09, 0.1, 0.1, 0.1],
  },
);
const run = (name: string, misses: number) =>
  metricSnapshot(name, {
    critic_miss_rate: counts(misses, 155),
    underclaim_approvals: counts(20, 165),
    critic_unavailable_rate: counts(0, 370),
    critical_critic_misses: counts(10, 85),
    label_flip_rate: 0.1,
  });
const HEADLINE = ["critic_miss_rate", "underclaim_approvals", "critic_unavailable_rate", "label_flip_rate"];

describe("what the drift charts could detect (trend's detectable shifts)", () => {
  it("gives each headline rate judged by Fisher's test its smallest shifts by 1 and by `sustain` runs, at α over the headline tests sharing it", () => {
    const t = trend([run("r1", 19), run("r2", 21)], baseline, { headline: HEADLINE });
    const miss = t.metrics.find((m) => m.metric === "critic_miss_rate")!;
    // critic_unavailable_rate has no event anywhere (its smallest p is 1): it takes no share, so 3 headline tests share α.
    expect(miss.detectable).toMatchObject({ level: 0.005 / 3, tests: 3, p0: 155 / 1240, reference_units: 1240, run_units: 155, worse: "up" });
    const design = { p0: 155 / 1240, referenceUnits: 1240, runUnits: 155, level: 0.005 / 3, direction: "up" as const };
    expect(miss.detectable!.by).toEqual(
      [1, 3].map((runs) => {
        const [half, most] = detectableShifts({ ...design, runs }, [0.5, 0.95]);
        return { runs, at_power_50: half, at_power_95: most };
      }),
    );
    // The rare-event test, the t test and the exploratory family have none.
    for (const metric of ["critic_unavailable_rate", "label_flip_rate", "critical_critic_misses"])
      expect(t.metrics.find((m) => m.metric === metric)!.detectable, metric).toBeNull();
    expect(t.metrics.find((m) => m.metric === "underclaim_approvals")!.detectable).toMatchObject({ p0: 160 / 1320, tests: 3 });
  });

  it("is the level the shift chart alarms at: one headline test alarms from the count whose one-sided p first falls to it", () => {
    const alone = (misses: number) => trend([run("r", misses)], baseline, { headline: ["critic_miss_rate"] });
    const { level } = alone(19).metrics.find((m) => m.metric === "critic_miss_rate")!.detectable!;
    expect(level).toBe(0.005);
    const first = Array.from({ length: 40 }, (_, x) => 20 + x).find((x) => alone(x).alerts.some((a) => a.metric === "critic_miss_rate"))!;
    expect(hypergeometricTails(first, 155, 155, 1240).upper).toBeLessThanOrEqual(level);
    expect(hypergeometricTails(first - 1, 155, 155, 1240).upper).toBeGreaterThan(level);
  });

  it("without a judged run, divides α by the headline family's size; follows `sustain` and a fall of a higher-is-better rate", () => {
    const three = [19, 21, 18].map((k, i) => run(`ref-${i}`, k));
    const d = trend(three, null, { headline: HEADLINE }).metrics.find((m) => m.metric === "critic_miss_rate")!.detectable!;
    expect(d).toMatchObject({ level: 0.005 / 4, tests: 4, p0: 58 / 465, reference_units: 465 });
    expect(trend(three, null, { headline: HEADLINE, sustain: 2 }).metrics[0]!.detectable!.by.map((b) => b.runs)).toEqual([1, 2]);
    const identical = (k: number) => metricSnapshot(`i${k}`, { injection_gate_identical: counts(k, 100) });
    const fall = trend([60, 62, 58, 61].map(identical), null, { headline: ["injection_gate_identical"] }).metrics[0]!.detectable!;
    expect(fall).toMatchObject({ worse: "down", p0: 0.6, level: 0.005 });
    expect(fall.by[0]!.at_power_50).toBeCloseTo(
      detectableShifts({ p0: 0.6, referenceUnits: 300, runUnits: 100, runs: 1, level: 0.005, direction: "down" }, [0.5])[0]!,
      12,
    );
  });

  it("prints one line per such rate, and without a baseline the hint that one narrows them", () => {
    const history = [19, 21, 18, 20].map((k, i) => run(`n${i}`, k));
    const text = formatTrend(trend(history, null, { headline: HEADLINE }));
    const summary = detectableSummary(trend(history, null, { headline: HEADLINE }))!;
    expect(summary.lines.map((l) => l.metric)).toEqual(["critic_miss_rate", "underclaim_approvals"]);
    expect(summary.lines[0]!.text).toMatch(
      /^0\.125: a rise of 0\.\d{3} is caught by 3 runs in half the cases, 0\.\d{3} in 95% \(by 1 run: 0\.\d{3}, 0\.\d{3}\)$/,
    );
    expect(text).toContain(`\n  critic_miss_rate ${summary.lines[0]!.text}\n`);
    // label_flip_rate at 0.1 in every reference run has no spread to test by, and no events: 2 headline tests share α.
    expect(summary.note).toContain("at the one-sided level 0.0025, α over 2 headline tests; by 3 runs: the sustained chart's mean of 3");
    expect(text).toContain("Judged against the first 3 runs alone: a baseline (--baseline) or more reference runs (--reference-runs) narrows these.");
    expect(formatTrend(trend(history, baseline, { headline: HEADLINE }))).not.toContain("Judged against the first");
    // No headline rate judged by its counts: no line at all.
    expect(detectableSummary(trend(history, null, { headline: ["label_flip_rate"] }))).toBeNull();
  });
});
