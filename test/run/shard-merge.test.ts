import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCorpus } from "../../harness/corpus/load.ts";
import { runOrigin } from "../../harness/report/format.ts";
import { loadRun } from "../../harness/run/load.ts";
import { snapshotOfRun, snapshotOfRuns } from "../../harness/baseline/io.ts";
import { readManifest } from "../../harness/run/manifest.ts";
import { loadMergeInput, mergeRuns } from "../../harness/run/merge.ts";
import { readTrialLog, RUN_FILES } from "../../harness/run/store.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import { trialKey, type TrialRecord } from "../../src/formats/records.ts";
import { cli, tempDir, testHost } from "./helpers.ts";

/** A few real corpus goals and fixtures, through the real engine on the sim provider. */
function selection(): string {
  const corpus = loadCorpus("corpus");
  return [...corpus.goals.slice(0, 5).map((g) => g.goal.id), ...corpus.fixtures.slice(0, 3).map((f) => f.fixture.id)].join(",");
}

const verdicts = (records: TrialRecord[]) =>
  records.map((r) => ({
    key: trialKey(r),
    status: r.status,
    verdict: r.verdict,
    critic_verdict: r.critic_verdict,
    reasons: r.escalation_reasons,
    calls: r.calls.map((c) => c.request_sha256),
  }));

describe("sharding and merge (sim, same seed)", () => {
  it("4 shards merged equal the unsharded run, trial by trial", async () => {
    const root = tempDir("ft-shard-");
    const only = selection();
    const base = { only, trials: "3", seed: "7" };
    expect(await runSweep(cli({ ...base, out: join(root, "whole") }), {}, realEngine({}), testHost())).toBe(0);
    const shards = [1, 2, 3, 4].map((i) => join(root, `shard-${i}`));
    for (const [i, out] of shards.entries()) {
      expect(await runSweep(cli({ ...base, out, shard: `${i + 1}/4`, concurrency: String(i + 1) }), {}, realEngine({}), testHost())).toBe(0);
    }
    const sizes = shards.map((d) => readTrialLog(d).records.length);
    // One shard is not a baseline: publish refuses it; diff, gate, trend and compare say what it is.
    expect(() => snapshotOfRuns([shards[0]!], "corpus", "x")).toThrow(
      /shard-1\/manifest\.json: state: the run is shard 1\/4 of a sweep \(\d+ of its \d+ trials\): publish completed runs only \(resume it, or merge the shards first\)$/,
    );
    const warned: string[] = [];
    snapshotOfRun(shards[0]!, "corpus", { warn: (l) => warned.push(l) });
    const shard1 = readManifest(shards[0]!).plan;
    expect(warned).toEqual([
      `${shards[0]}: the run is shard 1/4 of a sweep (${shard1.shard_planned} of its ${shard1.planned} trials): its numbers describe only the trials it recorded; \`fieldtest merge\` of every shard gives the sweep's numbers`,
    ]);
    // A shard's own report says what it is: a part of the sweep.
    expect(loadRun(shards[1]!).warnings).toContainEqual(
      `the run is shard 2/4 of a sweep (${sizes[1]} of its ${readManifest(shards[1]!).plan.planned} trials): its numbers describe only the trials it recorded; \`fieldtest merge\` of every shard gives the sweep's numbers`,
    );
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);

    const merged = join(root, "merged");
    const m = mergeRuns(shards.map(loadMergeInput), merged, { now: () => new Date(), runId: "merged", command: ["fieldtest", "merge"], force: false });
    expect(m.merged_from?.map((s) => s.shard?.index)).toEqual([1, 2, 3, 4]);
    expect(m.config_hash).toBe(readManifest(join(root, "whole")).config_hash);
    expect(readManifest(merged).state).toBe("completed");
    expect(runOrigin(readManifest(merged))).toBe("merged from 4 runs (shard 1/4, shard 2/4, shard 3/4, shard 4/4)");
    const whole = readTrialLog(join(root, "whole")).records;
    expect(verdicts(readTrialLog(merged).records)).toEqual(verdicts(whole));
    expect(whole.length).toBe(m.plan.planned);

    // A merge that fails part-way removes what it wrote; one killed part-way (its manifest not yet
    // written, its lock left behind) is redone by the next merge into the folder, without --force.
    const again = (force = false, notify?: (line: string) => void) =>
      mergeRuns(shards.map(loadMergeInput), merged, { now: () => new Date(), runId: "again", command: [], force, notify });
    const rename = fs.renameSync;
    fs.renameSync = ((from: fs.PathLike, to: fs.PathLike) => {
      if (String(to).endsWith(RUN_FILES.manifest)) throw Object.assign(new Error("EIO: i/o error, rename"), { code: "EIO" });
      rename(from, to);
    }) as typeof fs.renameSync;
    syncBuiltinESMExports();
    try {
      expect(() => again(true)).toThrow(/EIO/);
    } finally {
      fs.renameSync = rename;
      syncBuiltinESMExports();
    }
    expect(readdirSync(merged)).toEqual([]);
    again();
    rmSync(join(merged, RUN_FILES.manifest));
    writeFileSync(
      join(merged, RUN_FILES.lock),
      JSON.stringify({ pid: 2 ** 22 + 1, host: hostname(), started_at: new Date().toISOString(), rebuildable: true }),
    );
    const notes: string[] = [];
    expect(again(false, (l) => notes.push(l)).totals.recorded).toBe(whole.length);
    expect(notes).toEqual([
      expect.stringMatching(/^taking over a stale lock: pid 4194305 .* is gone$/),
      expect.stringMatching(/^removing what an unfinished write left .*: spend\.jsonl, trials\.jsonl$/),
    ]);
    expect(verdicts(readTrialLog(merged).records)).toEqual(verdicts(whole));
    // killed on another machine (a merge pod on a node that died): its lock cannot be checked from here
    rmSync(join(merged, RUN_FILES.manifest));
    writeFileSync(join(merged, RUN_FILES.lock), JSON.stringify({ pid: 7, host: "node-that-died", started_at: new Date().toISOString(), rebuildable: true }));
    expect(() => again()).toThrow(/locked by pid 7 on host node-that-died .* take the lock with --break-lock/);
    expect(
      mergeRuns(shards.map(loadMergeInput), merged, { now: () => new Date(), runId: "again", command: [], force: false, breakLock: true }).totals.recorded,
    ).toBe(whole.length);

    // A completed run whose log lost lines since says so, and is no baseline.
    const cut = join(root, "cut");
    cpSync(join(root, "whole"), cut, { recursive: true });
    const lines = readFileSync(join(cut, RUN_FILES.trials), "utf8").trimEnd().split("\n");
    writeFileSync(join(cut, RUN_FILES.trials), `${lines.slice(0, 10).join("\n")}\n`);
    const cutWarning = `${RUN_FILES.trials} holds 10 of the ${whole.length} trials the run planned: lines were lost since it completed: its numbers describe only the trials it recorded`;
    expect(loadRun(cut).warnings).toContain(cutWarning);
    expect(() => snapshotOfRuns([cut], "corpus", "x")).toThrow(
      `state: ${RUN_FILES.trials} holds 10 of the ${whole.length} trials the run planned: lines were lost since it completed: publish completed runs only`,
    );

    // refusals: a missing shard, a shard given twice, a shard made with other settings
    const refuse = (dirs: string[]) => () =>
      mergeRuns(dirs.map(loadMergeInput), join(tempDir(), "m"), { now: () => new Date(), runId: "x", command: [], force: false });
    expect(refuse(shards.slice(0, 3))).toThrow(/missing from every run/);
    expect(refuse([...shards, shards[0]!])).toThrow(/more than one run/);
    // the error names the folder that repeats a key, not whichever came second
    expect(refuse([...shards, shards[3]!])).toThrow(new RegExp(`^${shards[3]!}: trials.jsonl: trial keys recorded in more than one run`));
    const other = join(root, "other-seed");
    await runSweep(cli({ ...base, seed: "8", out: other, shard: "4/4" }), {}, realEngine({}), testHost());
    expect(refuse([...shards.slice(0, 3), other])).toThrow(/config_hash: differs/);
  });
});
