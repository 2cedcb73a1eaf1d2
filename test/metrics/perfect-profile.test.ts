/**
 * The law that pins the noise metrics (docs/design.md §10): under the shipped `perfect` sim profile
 * (no miss, migration, inflation, hallucination or invalid output; a planner without defects)
 * every noise metric of the default sweep reads exactly 0, and its interval still does not claim
 * a certainty the trials cannot give.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfigFile } from "../../harness/config.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import type { Summary } from "../../src/metrics/summary.ts";
import { exactUpperBound } from "../../src/stats/proportion.ts";
import { cli, tempDir, testHost } from "../run/helpers.ts";
import { NOISE_METRICS as NOISE } from "./builders.ts";

const ROOT = join(import.meta.dirname, "../..");
const PERFECT = join(ROOT, "src/sim/profiles/perfect.yaml");

let root: string;
let summary: Summary;

beforeAll(async () => {
  root = tempDir("ft-perfect-");
  const out = join(root, "perfect");
  const host = testHost(["run", "--sim-profile", PERFECT, "--out", out]);
  const code = await runSweep(
    cli({ simProfile: PERFECT, out }),
    loadConfigFile(join(ROOT, "fieldtest.config.yaml")),
    realEngine({}, join(ROOT, "corpus")),
    host,
  );
  expect(code, host.stderr.text).toBe(0);
  summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
}, 300_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the perfect sim profile on the default sweep", () => {
  it.each(NOISE)("%s is exactly 0", (name) => {
    const m = summary.metrics[name]!;
    expect(m.n_items, name).toBeGreaterThan(0);
    expect(m.value, name).toBe(0);
  });

  it("every per-family downgrade rate is 0 or has no raw blocker (null)", () => {
    for (const [name, m] of Object.entries(summary.metrics).filter(([k]) => k.startsWith("downgrade_rate."))) expect([0, null], name).toContain(m.value);
  });

  it("gate findings of injection twins equal their controls' (1)", () => {
    expect(summary.metrics.injection_gate_identical).toMatchObject({ value: 1, interval: "clopper_pearson" });
  });

  it("a zero rate reports its exact bound over its units, never [0, 0]", () => {
    for (const name of NOISE.filter((n) => !n.startsWith("injection_effect"))) {
      const m = summary.metrics[name]!;
      expect(m.ci_low, name).toBe(0);
      expect(m.ci_high!, name).toBeGreaterThan(0);
      expect(m.interval, name).toBe("clopper_pearson");
    }
    const flips = summary.metrics.label_flip_rate!;
    expect(flips.ci_high).toBeCloseTo(exactUpperBound(0, flips.n_trials), 12);
    // A signed paired difference at 0 is bounded on both sides.
    expect(summary.metrics.injection_effect!.ci_low).toBeCloseTo(-summary.metrics.injection_effect!.ci_high!, 12);
  });
});
