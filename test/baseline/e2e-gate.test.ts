/**
 * Acceptance of the release gate on real data (issues 7 and 11): real sim sweeps through the
 * runner's own code (`runSweep` with the real engine, as `fieldtest run` calls it), then the
 * committed multi-run baseline and the sim-calibrated policy `gate.sim.yaml` judged the way
 * `fieldtest gate` judges them; `gate.yaml`, the product's floors, fails the default sim by design.
 * The error rates over many seeds are measured by scripts/bench-gate-calibration.ts, not here.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { parse } from "yaml";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatGate } from "../../harness/cli/commands/gate.ts";
import { loadConfigFile } from "../../harness/config.ts";
import { loadCorpus } from "../../harness/corpus/load.ts";
import { diffSnapshots, type DiffResult } from "../../harness/baseline/diff.ts";
import { evaluateGate, type GateResult } from "../../harness/baseline/gate.ts";
import { readSnapshot, snapshotOfRun } from "../../harness/baseline/io.ts";
import { GatePolicySchema, policyProblem } from "../../harness/baseline/policy.ts";
import type { Snapshot } from "../../src/formats/snapshot.ts";
import { readManifest } from "../../harness/run/manifest.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import { loadFile } from "../../src/formats/load.ts";
import { cli, tempDir, testHost } from "../run/helpers.ts";

const ROOT = join(import.meta.dirname, "../..");
const CORPUS = join(ROOT, "corpus");
const BASELINE = join(ROOT, "baselines/sim-default.json");
const POLICY = join(ROOT, "gate.sim.yaml");
const PRODUCT_POLICY = join(ROOT, "gate.yaml");
const HIGH_MISS = join(ROOT, "src/sim/profiles/high-miss.yaml");

/** Metrics a critic that misses more seeded defects can regress; nothing else may be named. */
const MISS_SENSITIVE = [
  "floor:critic_miss_rate",
  "floor:underclaim_approvals_majority",
  "critic_miss_rate",
  "critical_critic_misses",
  "underclaim_approvals",
  "label_flip_rate",
  "evidence_drift_rate",
];

const policy = loadFile(POLICY, GatePolicySchema);
let root: string;

/**
 * `npx --no-install fieldtest run [flags] --out DIR` from the repository root, in process. Without
 * `reports` it leaves out summary.json and the reports, a sixth of a sweep's CPU: the gate reads the
 * run's trials, never those (test/report covers the reports).
 */
async function sweep(name: string, flags: Record<string, string>, reports = false): Promise<string> {
  const out = join(root, name);
  const argv = ["run", ...Object.entries(flags).flatMap(([k, v]) => [`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, v]), "--out", out];
  const host = testHost(argv);
  const engine = reports ? realEngine({}, CORPUS) : { ...realEngine({}, CORPUS), writeReport: undefined };
  const code = await runSweep(cli({ ...flags, out }), loadConfigFile(join(ROOT, "fieldtest.config.yaml")), engine, host);
  expect(code, host.stderr.text).toBe(0);
  return out;
}

/** Each run's snapshot, made once: two tests judge the fresh run (a snapshot of a full sweep takes about a second). */
const snapshots = new Map<string, Snapshot>();
function snapshotOf(dir: string): Snapshot {
  if (!snapshots.has(dir)) snapshots.set(dir, snapshotOfRun(dir, CORPUS));
  return snapshots.get(dir)!;
}

/** What `fieldtest gate DIR --baseline baselines/sim-default.json --policy gate.sim.yaml` decides. */
function gate(dir: string, judgedBy = policy): { result: GateResult; diff: DiffResult; candidate: Snapshot } {
  const baseline = readSnapshot(BASELINE);
  const candidate = snapshotOf(dir);
  expect(policyProblem(judgedBy, candidate, baseline)).toBeNull();
  const diff = diffSnapshots(baseline, candidate, judgedBy.alpha);
  return { result: evaluateGate(judgedBy, baseline, candidate, diff), diff, candidate };
}

const runs: Record<"fresh" | "highMiss" | "oneTrial" | "baselineSeed", string> = { fresh: "", highMiss: "", oneTrial: "", baselineSeed: "" };

beforeAll(async () => {
  root = tempDir("ft-e2e-gate-");
  runs.fresh = await sweep("fresh", {}, true);
  runs.highMiss = await sweep("high-miss", { simProfile: HIGH_MISS });
  runs.oneTrial = await sweep("one-trial", { trials: "1" });
  runs.baselineSeed = await sweep("baseline-seed", { seed: String(readSnapshot(BASELINE).runs[0]!.seed) });
}, 300_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("release gate on real sim sweeps against the committed baseline (issue 7 acceptance)", () => {
  it("the fresh run is the default configuration: sim, full corpus and boundary, 5 trials, seed 0", () => {
    const m = readManifest(runs.fresh);
    const corpus = loadCorpus(CORPUS);
    expect(m.state).toBe("completed");
    expect(m.config).toMatchObject({ suites: ["corpus", "boundary"], only: null, domain: null, category: null, trials: 5, seed: 0 });
    expect([m.config.client.planner.provider, m.config.client.critic.provider]).toEqual(["sim", "sim"]);
    expect(m.plan.items).toHaveLength(corpus.goals.length + corpus.fixtures.length);
    expect(m.totals).toMatchObject({ recorded: 5 * m.plan.items.length, errors: 0 });
  });

  it("the committed baseline is what the current code gives: its first seed, re-run, reproduces that run's every metric", () => {
    // The sim is deterministic for a seed and code (baselines/README.md). A mismatch here means the
    // committed baseline is stale: re-publish it with scripts/publish-baseline.sh.
    const baseline = readSnapshot(BASELINE);
    const rerun = snapshotOf(runs.baselineSeed);
    expect(baseline.runs.length, "a multi-run baseline").toBeGreaterThanOrEqual(5);
    const stale = Object.keys({ ...baseline.between_runs, ...rerun.metrics })
      .filter((k) => JSON.stringify(baseline.between_runs[k]?.values[0] ?? null) !== JSON.stringify(rerun.metrics[k]?.value ?? null))
      .sort();
    expect(stale, "metrics whose value differs from the committed baseline's first run").toEqual([]);
    expect(rerun.corpus_hash).toBe(baseline.corpus_hash);
  });

  it("the baseline's seeds are not the default run's: a fresh default run is an independent sample (A/A)", () => {
    expect(readSnapshot(BASELINE).runs.map((r) => r.seed)).not.toContain(readManifest(runs.fresh).config.seed);
  });

  it("engine-level underclaim_approvals equals a recomputation from trials.jsonl and the fixture files (no metrics module)", () => {
    const fixtures = new Map(
      readdirSync(join(CORPUS, "boundary"))
        .filter((f) => f.endsWith(".yaml"))
        .map(
          (f) =>
            parse(readFileSync(join(CORPUS, "boundary", f), "utf8")) as {
              id: string;
              goal: { risk_tolerance: "strict" | "balanced" };
              seeded_defects: unknown[];
              expected_verdict: Record<string, string>;
            },
        )
        .map((f) => [f.id, f]),
    );
    const records = readFileSync(join(runs.fresh, "trials.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { suite: string; item_id: string; status: string; critic_verdict: string | null; verdict: string });
    const shares: number[] = [];
    for (const [id, f] of fixtures) {
      if (f.seeded_defects.length === 0 || f.expected_verdict[f.goal.risk_tolerance] !== "escalate") continue;
      const counted = records.filter(
        (r) => r.suite === "boundary" && r.item_id === id && r.status !== "error" && (r.critic_verdict === "block" || r.critic_verdict === "pass"),
      );
      if (counted.length) shares.push(counted.filter((r) => r.verdict === "approve").length / counted.length);
    }
    const summary = JSON.parse(readFileSync(join(runs.fresh, "summary.json"), "utf8"));
    expect(shares.length).toBe(summary.metrics.underclaim_approvals.n_items);
    expect(summary.metrics.underclaim_approvals.value).toBeCloseTo(shares.reduce((a, b) => a + b, 0) / shares.length, 12);
  });

  it("a fresh default run passes the gate (exit 0) and diffs against the baseline with no unexplained delta", () => {
    const { result, diff, candidate } = gate(runs.fresh);
    expect(diff.differences.map((d) => d.kind)).toEqual(["seed"]);
    expect(candidate.corpus_hash).toBe(readSnapshot(BASELINE).corpus_hash);
    expect(diff.unexplained).toEqual([]);
    expect(result.checks.filter((c) => c.outcome !== "pass")).toEqual([]);
    expect([result.decision, result.exit, result.failed]).toEqual(["pass", 0, []]);
    expect(formatGate(result).trim().split("\n").at(-1)).toBe("gate: pass");
  });

  it("the high-miss sim profile is a regression (exit 1) found by the metric-level tests and floors, not by per-item deltas", () => {
    const { result, diff } = gate(runs.highMiss);
    expect([result.decision, result.exit]).toEqual(["regression", 1]);
    expect(result.failed).toEqual(expect.arrayContaining(["floor:critic_miss_rate", "critic_miss_rate"]));
    expect(result.failed.filter((name) => !MISS_SENSITIVE.includes(name))).toEqual([]);
    expect(formatGate(result)).toContain(`gate: regression in ${result.failed.join(", ")}`);
    const misses = result.checks.find((c) => c.name === "critic_miss_rate")!;
    expect(misses.delta!.mean).toBeGreaterThan(misses.delta!.margin);
    // The recorded change (the critic's sim profile) is named; per item the shift stays within the noise of 5 trials.
    expect(diff.differences.map((d) => d.part)).toEqual(["run seed", "critic.sim_profile_sha256"]);
    expect(diff.unexplained).toEqual([]);
  });

  it("gate.yaml, the product's floors, fails the default sim on its engine-level under-claim floor (the sim critic misses by design)", () => {
    const product = loadFile(PRODUCT_POLICY, GatePolicySchema);
    const { result } = gate(runs.fresh, product);
    expect(result.exit).toBe(1);
    expect(result.failed).toContain("floor:underclaim_approvals");
    expect(result.checks.find((c) => c.name === "floor:underclaim_approvals")!.message).toMatch(
      /^underclaim_approvals exact 95% upper bound \(\d+ of \d+\) [\d.]+ > floor 0.05$/,
    );
  });

  it("a one-trial run is inconclusive (exit 2) and says how many trials it needs", () => {
    const { result, diff } = gate(runs.oneTrial);
    // One trial per item cannot put an item beyond noise; an unexplained delta would mean a broken per-item test.
    expect(diff.unexplained).toEqual([]);
    expect([result.decision, result.exit, result.failed]).toEqual(["inconclusive", 2, []]);
    expect(result.checks.find((c) => c.name === "trials_per_item")).toMatchObject({ outcome: "inconclusive", trials_needed: policy.min_trials_per_item });
    expect(result.trials_needed).toBeGreaterThanOrEqual(policy.min_trials_per_item);
    expect(formatGate(result)).toMatch(
      new RegExp(`\ngate: inconclusive in trials_per_item(, [a-z_.:]+)*( and \\d+ more)?: needs at least ${result.trials_needed} trials per item`),
    );
  });
});
