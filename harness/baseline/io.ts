import { existsSync, statSync } from "node:fs";
import { basename } from "node:path";
import { loadFile } from "../../src/formats/load.ts";
import { loadRun, type LoadedRun } from "../report/load.ts";
import { writeJsonAtomic } from "../run/store.ts";
import { SnapshotSchema, type Snapshot } from "./schema.ts";
import { buildSnapshot } from "./snapshot.ts";

/** A run directory reduced to a snapshot (metrics computed from its trials and the corpus at `corpusRoot`). */
export function snapshotOfRun(dir: string, corpusRoot: string, name = basename(dir)): Snapshot {
  return snapshotOfLoaded(loadRun(dir, corpusRoot), name);
}

/** A run already read (and summarized) reduced to a snapshot. */
export function snapshotOfLoaded(run: LoadedRun, name = basename(run.dir)): Snapshot {
  return buildSnapshot({ name, manifest: run.manifest, trials: run.trials, fixtures: run.fixtures, metrics: run.summary.metrics });
}

/** A published baseline file, schema-checked (a bad file is one line naming file and key path). */
export function readSnapshot(file: string): Snapshot {
  return loadFile(file, SnapshotSchema);
}

/** A run directory or a baseline file, whichever `path` is. */
export function readComparable(path: string, corpusRoot: string): Snapshot {
  return existsSync(path) && statSync(path).isDirectory() ? snapshotOfRun(path, corpusRoot) : readSnapshot(path);
}

export function writeSnapshot(file: string, snapshot: Snapshot): void {
  writeJsonAtomic(file, snapshot);
}
