import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { RUN_FILES } from "../../harness/run/store.ts";
import { makeFixture, writeCorpus, writeRunDir, type ItemSpec } from "../baseline/builders.ts";
import { runFieldtest } from "./cli.ts";

/** Two boundary items of three trials each: a seeded defect mostly blocked, a clean control passed. */
export const TWO_ITEMS: ItemSpec[] = [
  { suite: "boundary", id: "seeded-0", verdicts: ["block", "block", "pass"] },
  { suite: "boundary", id: "clean-0", verdicts: ["pass", "pass", "pass"] },
];

/** Hand-built runs for the commands that read run folders: a corpus, a run, a second run (another seed), a baseline of the second and a gate policy. */
export interface HandBuiltRuns {
  root: string;
  corpus: string;
  hashes: Record<string, string>;
  /** A completed run of TWO_ITEMS with a spend journal. */
  run: string;
  other: string;
  baseline: string;
  policy: string;
}

export async function handBuiltRuns(prefix: string): Promise<HandBuiltRuns> {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const corpus = join(root, "corpus");
  const hashes = writeCorpus(corpus, [makeFixture("seeded-0", true), makeFixture("clean-0", false)], []);
  const run = join(root, "run");
  writeRunDir(run, TWO_ITEMS, hashes, (m) => void ((m.plan.planned = 6), (m.plan.shard_planned = 6)));
  writeFileSync(join(run, RUN_FILES.spend), "");
  const other = join(root, "other");
  writeRunDir(other, TWO_ITEMS, hashes, (m) => void ((m.run_id = "run-2"), (m.config.seed = 1)));
  const policy = join(root, "policy.yaml");
  writeFileSync(policy, ["version: 1", "min_trials_per_item: 3", "floors:", "  - { metric: critic_unavailable_rate, max: 0.1 }", ""].join("\n"));
  const baseline = join(root, "base.json");
  const published = await runFieldtest(["baseline", "publish", other, "--out", baseline, "--corpus", corpus]);
  expect(published.code, published.stderr).toBe(0);
  return { root, corpus, hashes, run, other, baseline, policy };
}

/**
 * Every command that reads a run folder, on `dir` (with the other run where one takes two),
 * writing what it writes under `out`; `run --resume` too when `resume` (it refuses a hand-built
 * run's configuration, after the checks of its folder).
 */
export function runReaders(h: HandBuiltRuns, dir: string, out: string, { resume = false } = {}): string[][] {
  const corpus = ["--corpus", h.corpus];
  return [
    ["report", dir, ...corpus],
    ["gate", dir, "--baseline", h.baseline, "--policy", h.policy, ...corpus],
    ["diff", dir, "--baseline", h.baseline, ...corpus],
    ["compare", dir, h.other, ...corpus],
    ["trend", h.other, dir, ...corpus],
    ["research", dir, h.other, "--out", join(out, "research"), ...corpus],
    ["merge", dir, "--out", join(out, "merged")],
    ["baseline", "publish", dir, "--out", join(out, "b.json"), ...corpus],
    ...(resume ? [["run", "--resume", dir]] : []),
  ];
}
