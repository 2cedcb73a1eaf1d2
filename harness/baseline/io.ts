import { existsSync, statSync } from "node:fs";
import { basename } from "node:path";
import { InputError, loadFile } from "../../src/formats/load.ts";
import { summarize } from "../../src/metrics/summary.ts";
import { loadRun, runWarnings, type LoadedRun } from "../run/load.ts";
import { writeJsonAtomic } from "../run/store.ts";
import { poolingProblem } from "./compat.ts";
import { SnapshotSchema, type Snapshot } from "../../src/formats/snapshot.ts";
import { buildSnapshot, poolTrials } from "./snapshot.ts";

/** A run already read (and summarized) reduced to a snapshot. */
export const snapshotOfLoaded = (run: LoadedRun, name = basename(run.dir)): Snapshot =>
  buildSnapshot({
    name,
    runs: [{ manifest: run.manifest, trials: run.trials, metrics: run.summary.metrics }],
    fixtures: run.fixtures,
    metrics: run.summary.metrics,
  });

/**
 * A run directory reduced to a snapshot (metrics computed from its trials and the corpus at
 * `corpusRoot`). The run's warnings are said on `warn` (a run that is only part of what it
 * planned: its numbers describe that part; torn or repeated lines; a changed corpus).
 */
export function snapshotOfRun(
  dir: string,
  corpusRoot: string,
  { name = basename(dir), warn }: { name?: string; warn?: (line: string) => void } = {},
): Snapshot {
  const run = loadRun(dir, corpusRoot);
  for (const line of runWarnings(run)) warn?.(line);
  return snapshotOfLoaded(run, name);
}

/**
 * Several runs of one configuration (independent seeds) reduced to one snapshot: items pool every
 * run's trials, `metrics` are computed over the pooled trials, and `between_runs` keeps each run's
 * own value of every metric with their mean and SD. Runs that differ in anything but the seed,
 * cover other items or repeat a run are bad input naming the run directory. Each run's warnings
 * are said on `warn`.
 */
export function snapshotOfRuns(dirs: readonly string[], corpusRoot: string, name: string, warn?: (line: string) => void): Snapshot {
  const runs = dirs.map((d) => loadRun(d, corpusRoot));
  // A baseline is what releases are judged against: a part of a run would stand in for the whole.
  runs.forEach((r, i) => {
    if (r.partial !== null)
      throw new InputError(`${dirs[i]}/manifest.json`, "state", `${r.partial.what}: publish completed runs only (resume it, or merge the shards first)`);
  });
  for (const line of runs.flatMap(runWarnings)) warn?.(line);
  if (runs.length === 1) return snapshotOfLoaded(runs[0]!, name);
  const problem = poolingProblem(runs.map((r) => snapshotOfLoaded(r, name)));
  if (problem) throw new InputError(`${dirs[problem.index]}/manifest.json`, problem.part, problem.message);
  const first = runs[0]!;
  const pooled = summarize(
    { trials: poolTrials(runs.map((r) => r.trials)), fixtures: first.fixtures, goals: first.goals },
    { seed: first.manifest.config.seed },
  );
  return buildSnapshot({
    name,
    runs: runs.map((r) => ({ manifest: r.manifest, trials: r.trials, metrics: r.summary.metrics })),
    fixtures: first.fixtures,
    metrics: pooled.metrics,
  });
}

/** A published baseline file, schema-checked (a bad file is one line naming file and key path). */
export function readSnapshot(file: string): Snapshot {
  return loadFile(file, SnapshotSchema);
}

/** A run directory or a baseline file, whichever `path` is (a run's warnings are said on `warn`). */
export function readComparable(path: string, corpusRoot: string, warn?: (line: string) => void): Snapshot {
  return existsSync(path) && statSync(path).isDirectory() ? snapshotOfRun(path, corpusRoot, { warn }) : readSnapshot(path);
}

export function writeSnapshot(file: string, snapshot: Snapshot): void {
  writeJsonAtomic(file, snapshot);
}
