/**
 * Acceptance of the release gate (issue 7) on real data: real sim sweeps through the runner's own
 * code (`runSweep` with the real engine, as `fieldtest run` calls it), then the committed baseline
 * and `gate.yaml` judged the way `fieldtest gate` judges them.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatGate } from "../../harness/cli/commands/gate.ts";
import { loadConfigFile } from "../../harness/config.ts";
import { loadCorpus } from "../../harness/corpus/load.ts";
import { diffSnapshots, type DiffResult } from "../../harness/baseline/diff.ts";
import { evaluateGate, type GateResult } from "../../harness/baseline/gate.ts";
import { readSnapshot, snapshotOfRun } from "../../harness/baseline/io.ts";
import { GatePolicySchema, policyProblem } from "../../harness/baseline/policy.ts";
import type { Snapshot } from "../../harness/baseline/schema.ts";
import { readManifest } from "../../harness/run/manifest.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/run/wiring.ts";
import { loadFile } from "../../src/formats/load.ts";
import { cli, tempDir, testHost } from "../run/helpers.ts";

const ROOT = join(import.meta.dirname, "../..");
const CORPUS = join(ROOT, "corpus");
const BASELINE = join(ROOT, "baselines/sim-default.json");
const POLICY = join(ROOT, "gate.yaml");
const HIGH_MISS = join(ROOT, "src/providers/sim/profiles/high-miss.yaml");

/** Metrics a critic that misses more seeded defects can regress; nothing else may be named. */
const MISS_SENSITIVE = ["floor:underclaim_approvals_majority", "underclaim_approvals", "critical_underclaims", "label_flip_rate", "evidence_drift_rate"];

const policy = loadFile(POLICY, GatePolicySchema);
let root: string;

/** `npx --no-install fieldtest run [flags] --out DIR` from the repository root, in process. */
async function sweep(name: string, flags: Record<string, string>): Promise<string> {
  const out = join(root, name);
  const argv = ["run", ...Object.entries(flags).flatMap(([k, v]) => [`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, v]), "--out", out];
  const host = testHost(argv);
  const code = await runSweep(cli({ ...flags, out }), loadConfigFile(join(ROOT, "fieldtest.config.yaml")), realEngine({}, CORPUS), host);
  expect(code, host.stderr.text).toBe(0);
  return out;
}

/** What `fieldtest gate DIR --baseline baselines/sim-default.json --policy gate.yaml` decides. */
function gate(dir: string): { result: GateResult; diff: DiffResult; candidate: Snapshot } {
  const baseline = readSnapshot(BASELINE);
  const candidate = snapshotOfRun(dir, CORPUS);
  expect(policyProblem(policy, candidate, baseline)).toBeNull();
  const diff = diffSnapshots(baseline, candidate, policy.alpha);
  return { result: evaluateGate(policy, baseline, candidate, diff), diff, candidate };
}

const runs: Record<"fresh" | "highMiss" | "oneTrial", string> = { fresh: "", highMiss: "", oneTrial: "" };

beforeAll(async () => {
  root = tempDir("ft-e2e-gate-");
  runs.fresh = await sweep("fresh", {});
  runs.highMiss = await sweep("high-miss", { simProfile: HIGH_MISS });
  runs.oneTrial = await sweep("one-trial", { trials: "1" });
}, 120_000);

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

  it("the committed baseline is what the current code gives: a fresh default run matches it item for item", () => {
    // The sim is deterministic for a seed and code (baselines/README.md). A mismatch here means
    // the committed baseline is stale: re-publish it from a fresh default run.
    const baseline = readSnapshot(BASELINE);
    const { candidate } = gate(runs.fresh);
    const stale = (a: Record<string, unknown>, b: Record<string, unknown>) =>
      [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
    const byKey = (s: Snapshot) => Object.fromEntries(s.items.map((i) => [`${i.suite}/${i.item_id}`, i]));
    expect(stale(byKey(candidate), byKey(baseline)), "items whose trials differ from the committed baseline").toEqual([]);
    expect(stale(candidate.metrics, baseline.metrics), "metrics that differ from the committed baseline").toEqual([]);
  });

  it("a fresh default run passes the gate (exit 0) and diffs against the baseline with no unexplained delta", () => {
    const { result, diff, candidate } = gate(runs.fresh);
    expect(diff.differences).toEqual([]);
    expect(candidate.corpus_hash).toBe(readSnapshot(BASELINE).corpus_hash);
    expect(diff.unexplained).toEqual([]);
    expect(result.checks.filter((c) => c.outcome !== "pass")).toEqual([]);
    expect([result.decision, result.exit, result.failed]).toEqual(["pass", 0, []]);
    expect(formatGate(result).trim().split("\n").at(-1)).toBe("gate: pass");
  });

  it("the high-miss sim profile is a regression (exit 1) that names the under-claim metrics", () => {
    const { result, diff } = gate(runs.highMiss);
    expect([result.decision, result.exit]).toEqual(["regression", 1]);
    expect(result.failed).toEqual(expect.arrayContaining(["floor:underclaim_approvals_majority", "underclaim_approvals"]));
    expect(result.failed.filter((name) => !MISS_SENSITIVE.includes(name))).toEqual([]);
    expect(formatGate(result)).toContain(`gate: regression in ${result.failed.join(", ")}`);
    const underclaims = result.checks.find((c) => c.name === "underclaim_approvals")!;
    expect(underclaims.delta!.mean).toBeGreaterThan(underclaims.delta!.margin);
    // The regression is attributed to the recorded change, the critic's sim profile, not left unexplained.
    expect(diff.differences.map((d) => d.part)).toEqual(["critic.sim_profile_sha256"]);
    expect(diff.unexplained).toEqual([]);
  });

  it("a one-trial run is inconclusive (exit 2) and says how many trials it needs", () => {
    const { result, diff } = gate(runs.oneTrial);
    // The sim seeds each call from its coordinates, so this run is trial 0 of the default run: every
    // delta against a current baseline is that item's own noise. An unexplained one means a stale baseline.
    expect(diff.unexplained).toEqual([]);
    expect([result.decision, result.exit, result.failed]).toEqual(["inconclusive", 2, []]);
    expect(result.checks.find((c) => c.name === "trials_per_item")).toMatchObject({ outcome: "inconclusive", trials_needed: policy.min_trials_per_item });
    expect(result.trials_needed).toBeGreaterThanOrEqual(policy.min_trials_per_item);
    expect(formatGate(result)).toContain(`gate: inconclusive: needs at least ${result.trials_needed} trials per item`);
  });
});
