import { createHash } from "node:crypto";
import { closeSync, fsyncSync, lstatSync, openSync, readdirSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { checkPlainFile, readRunText } from "../../src/formats/files.ts";
import { InputError, parseSource, validate } from "../../src/formats/load.ts";
import { TrialHeadSchema, TrialRecordSchema, trialKey, type TrialRecord } from "../../src/formats/records.ts";
import { JsonlLog, readJsonl } from "./jsonl.ts";
import { compareTrials } from "./work.ts";
import { maskedJson, maskText } from "../../src/secrets.ts";

/** The files of a run directory (docs/design.md §8). */
export const RUN_FILES = {
  manifest: "manifest.json",
  trials: "trials.jsonl",
  lock: "run.lock",
  spend: "spend.jsonl",
  calls: "calls.jsonl",
  summary: "summary.json",
  reportMd: "report.md",
  reportHtml: "report.html",
  csv: "trials.csv",
  junit: "gate-junit.xml",
} as const;

/** Where an imported run keeps the goals it was recorded on (its corpus: harness/import). */
const RUN_GOALS = "goals";

/**
 * Refuses a run folder any of whose files is a symbolic link or not a regular file (a FIFO, a
 * device, a folder): every command that reads or writes a run checks this first, so none reads,
 * appends or writes through a link to something outside the folder, or blocks on a FIFO. An
 * imported run's goals are its files too: a real folder of regular files and folders.
 */
export function checkRunFolder(dir: string): void {
  for (const name of Object.values(RUN_FILES)) checkPlainFile(join(dir, name));
  checkPlainTree(join(dir, RUN_GOALS));
}

/** A folder (when there is one) holding only regular files and folders, none of them a link. */
function checkPlainTree(dir: string): void {
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  if (stat === undefined) return;
  if (!stat.isDirectory()) return checkPlainFile(dir);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) checkPlainTree(path);
    else checkPlainFile(path);
  }
}

/** A trial key with two identical records: the lines of both. */
export interface Duplicate {
  key: string;
  lines: [number, number];
}

interface TrialLogRead<T = TrialRecord> {
  /** One record per key (an error record superseded by a later line of its key), in key order. */
  records: T[];
  /** Lines that are not complete JSON (a crash mid-write); never fatal. */
  torn: number;
  /** Keys that have more than one complete line (an error record re-run, or a record written twice). */
  repeated: string[];
  /** Keys written twice with the same record (read once): what a warning names. */
  duplicates: Duplicate[];
  /** Complete lines: every record written, a key's earlier lines included. */
  lines: number;
  /** Whether the run has a trial log at all. */
  found: boolean;
}

/** The fields the runner's own bookkeeping needs (a light projection: big sweeps stay small in memory). */
export interface TrialHead {
  suite: TrialRecord["suite"];
  item_id: string;
  trial: number;
  status: TrialRecord["status"];
  cost_usd: number | null;
  /** LLM calls as docs/design.md §10 counts them: every transport attempt. */
  calls: number;
}

export const trialHead = (r: TrialRecord): TrialHead => ({
  suite: r.suite,
  item_id: r.item_id,
  trial: r.trial,
  status: r.status,
  cost_usd: r.cost_usd,
  calls: r.calls.reduce((n, c) => n + c.transport_attempts.length, 0),
});

const TRIAL_LINE = { schema: TrialRecordSchema, head: TrialHeadSchema, what: "a trial record" };

/** What a key's record read so far is, to judge a later line of the key by. */
interface Held {
  line: number;
  /** An error record is superseded by any later record of its key (a --retry-errors re-run). */
  error: boolean;
  /** SHA-256 of the line's text (not kept for an error record): what tells an identical repeat from a conflict. */
  digest: string | null;
}

/** The warning for keys written twice with the same record. */
export function duplicatesWarning(duplicates: readonly Duplicate[]): string {
  const [first] = duplicates;
  const more = duplicates.length > 1 ? `, and ${duplicates.length - 1} more` : "";
  return `${duplicates.length} trial(s) of ${RUN_FILES.trials} are written twice with the same record, read once (${first!.key}: lines ${first!.lines.join(" and ")}${more})`;
}

const digestOf = (text: string) => createHash("sha256").update(text.trim()).digest("hex");

/**
 * Reads `trials.jsonl`: the one reader of trial logs (reports, resume, merge, replay). Every line is
 * validated (docs/design.md §8): a line that is not a trial record is invalid input naming the file,
 * the line and the key path; a torn last line (a crash mid-write) is skipped and counted, and so
 * is a torn line anywhere in a run recorded before the spend journal (manifest v1).
 *
 * A key's record is its last line only where the line before it is an `error` record, which a
 * `--retry-errors` re-run supersedes. Any other second line of a key is either the same record
 * written again (read once, and listed in `duplicates` for a warning) or a conflict: bad input
 * naming the key and both lines, since which of two different records is the trial cannot be known.
 *
 * `project` keeps only what the caller needs of each record. The file is streamed a line at a
 * time, and each record is dropped once projected, so a light projection reads a large run in
 * little memory.
 */
export function readTrialLog(dir: string): TrialLogRead;
export function readTrialLog<T extends Pick<TrialRecord, "suite" | "item_id" | "trial">>(dir: string, project: (r: TrialRecord) => T): TrialLogRead<T>;
export function readTrialLog(
  dir: string,
  project: (r: TrialRecord) => Pick<TrialRecord, "suite" | "item_id" | "trial"> = (r) => r,
): TrialLogRead<Pick<TrialRecord, "suite" | "item_id" | "trial">> {
  const file = join(dir, RUN_FILES.trials);
  const byKey = new Map<string, Pick<TrialRecord, "suite" | "item_id" | "trial">>();
  const held = new Map<string, Held>();
  const repeated = new Set<string>();
  const duplicates: Duplicate[] = [];
  let lines = 0;
  const visit = (record: TrialRecord, line: number, text: string) => {
    lines++;
    const key = trialKey(record);
    const error = record.status === "error";
    const digest = error ? null : digestOf(text);
    const before = held.get(key);
    if (before !== undefined) repeated.add(key);
    if (before !== undefined && !before.error) {
      if (before.digest !== digest) {
        throw new InputError(
          file,
          "",
          `trial ${key} has two different records, lines ${before.line} and ${line}: only an error record may be followed by another record of its key (a --retry-errors re-run)`,
          line,
        );
      }
      duplicates.push({ key, lines: [before.line, line] });
      return;
    }
    held.set(key, { line, error, digest });
    byKey.set(key, project(record));
  };
  // A run recorded before the spend journal (manifest v1) ended a torn line and resumed after it.
  const { torn, found } = readJsonl(file, TRIAL_LINE, visit, { tornAnywhere: manifestVersion(dir) === 1 });
  const records = [...byKey.values()].sort((a, b) => compareTrials(a, b));
  return { records, torn, repeated: [...repeated].sort(), duplicates, lines, found };
}

const ManifestVersionSchema = z.looseObject({ schema_version: z.number() });

/** The schema version of the run's manifest, or null when the folder has none. */
export function manifestVersion(dir: string): number | null {
  const file = join(dir, RUN_FILES.manifest);
  const read = readRunText(file);
  return read === null ? null : validate(parseSource(file, read.text), ManifestVersionSchema).schema_version;
}

/** The trial records of a run, one per key (see readTrialLog); torn lines skipped as readTrialLog skips them. */
export function readTrials(dir: string): TrialRecord[] {
  return readTrialLog(dir).records;
}

/** Append-only trial log: one line per finished trial, written before it counts as done (see JsonlLog). */
export class TrialLog {
  private readonly log: JsonlLog;

  constructor(dir: string) {
    this.log = new JsonlLog(join(dir, RUN_FILES.trials));
  }

  append(record: TrialRecord): void {
    this.log.append(record);
  }

  close(): void {
    this.log.close();
  }
}

/** Failures of the device under a run folder: full, over quota, read-only, failing, a file too large. */
export const DEVICE_FAILURES: ReadonlySet<string> = new Set(["ENOSPC", "EDQUOT", "EROFS", "EIO", "EFBIG"]);

/**
 * Whether writing a run's records failed for its storage, which no retry of a trial can help: the
 * device's failures, or a folder or file that may no longer be written (permissions, an immutable flag).
 */
export function isStorageFailure(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code ?? "";
  return DEVICE_FAILURES.has(code) || code === "EACCES" || code === "EPERM";
}

/**
 * Writes a file atomically (temp file, fsync, rename): a reader sees the old or the new file,
 * never half. A write can take fewer bytes than it was given (a disk that fills up part-way), so
 * it writes until every byte is down; on any failure the temp file is removed and the old file
 * stays, never replaced by a part of the new one. A file that is a symbolic link or not a regular
 * file is refused, not replaced; the temp file is created afresh (never opened through whatever
 * stands at its name). Every credential in the text is masked (src/secrets.ts).
 */
export function writeFileAtomic(file: string, text: string, write: typeof writeSync = writeSync): void {
  writeAtomic(file, maskText(text), write);
}

/** writeFileAtomic of a value's JSON, indented (masked as a value: a mask put into its text could break the JSON). */
export const writeJsonAtomic = (file: string, value: unknown): void => writeAtomic(file, `${maskedJson(value, 2)}\n`, writeSync);

function writeAtomic(file: string, text: string, write: typeof writeSync): void {
  checkPlainFile(file);
  const tmp = `${file}.tmp-${process.pid}`;
  const bytes = Buffer.from(text, "utf8");
  try {
    const fd = createAfresh(tmp);
    try {
      for (let done = 0; done < bytes.length;) done += write(fd, bytes, done, bytes.length - done);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    // The failure the caller sees is the write's, never a failed clean-up's.
    try {
      rmSync(tmp, { force: true });
    } catch {
      // a temp file left behind is removed by --force, or overwritten by the next write
    }
    // A folder where the file goes is the input's fault (a run folder put together by hand), not the storage's.
    if ((e as NodeJS.ErrnoException).code === "EISDIR") throw new InputError(file, "", "is a folder, not a file");
    throw e;
  }
}

/** Opens a new file for writing, exclusively: what a crash left at its name (or a link planted there) is removed first, never written through. */
function createAfresh(file: string): number {
  try {
    return openSync(file, "wx");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    rmSync(file);
    return openSync(file, "wx");
  }
}
