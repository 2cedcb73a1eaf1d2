import { closeSync, existsSync, fstatSync, fsync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { InputError } from "../../src/formats/load.ts";
import { TrialHeadSchema, trialKey, type TrialRecord } from "../../src/formats/records.ts";
import { compareTrials } from "./work.ts";

/** The files of a run directory (DESIGN.md §8). */
export const RUN_FILES = {
  manifest: "manifest.json",
  trials: "trials.jsonl",
  lock: "run.lock",
  summary: "summary.json",
  reportMd: "report.md",
  reportHtml: "report.html",
  csv: "trials.csv",
} as const;

export interface TrialLogRead<T = TrialRecord> {
  /** One record per key (the last line wins), in key order. */
  records: T[];
  /** Lines that are not complete JSON (a crash mid-write); never fatal. */
  torn: number;
  /** Keys that have more than one complete line (a re-run error, or a merge input to refuse). */
  repeated: string[];
}

/** The fields the runner's own bookkeeping needs (a light projection: big sweeps stay small in memory). */
export interface TrialHead {
  suite: TrialRecord["suite"];
  item_id: string;
  trial: number;
  status: TrialRecord["status"];
  cost_usd: number | null;
  /** LLM calls as DESIGN.md §10 counts them: every transport attempt. */
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

/** Bytes read from `trials.jsonl` at a time: the log is never held whole in memory. */
const READ_CHUNK_BYTES = 1 << 20;

/**
 * The lines of a file, one at a time (without the newline; the text after the last newline is the
 * last line). Read in chunks and decoded a line at a time: a newline byte never occurs inside a
 * UTF-8 sequence, so this decodes exactly as reading the whole file and splitting at "\n" does,
 * in memory proportional to the longest line rather than the whole file.
 */
function* fileLines(file: string): Generator<string> {
  const fd = openSync(file, "r");
  try {
    const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    let partial: Buffer[] = [];
    for (let n = readSync(fd, chunk, 0, chunk.length, null); n > 0; n = readSync(fd, chunk, 0, chunk.length, null)) {
      const bytes = chunk.subarray(0, n);
      let start = 0;
      for (let nl = bytes.indexOf(0x0a, start); nl !== -1; nl = bytes.indexOf(0x0a, start)) {
        const piece = bytes.subarray(start, nl);
        yield partial.length === 0 ? piece.toString("utf8") : Buffer.concat([...partial, piece]).toString("utf8");
        partial = [];
        start = nl + 1;
      }
      // The chunk buffer is reused: keep a copy of the unfinished line.
      if (start < n) partial.push(Buffer.from(bytes.subarray(start)));
    }
    yield Buffer.concat(partial).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads `trials.jsonl`. A line that is not complete JSON is a torn write and is skipped; a line
 * that parses but is not a trial record is foreign input (InputError). `project` keeps only what
 * the caller needs of each record. The file is streamed a line at a time, and each parsed record
 * is dropped once projected, so a light projection reads a large run in little memory.
 */
export function readTrialLog(dir: string): TrialLogRead;
export function readTrialLog<T extends Pick<TrialRecord, "suite" | "item_id" | "trial">>(dir: string, project: (r: TrialRecord) => T): TrialLogRead<T>;
export function readTrialLog(dir: string, project: (r: TrialRecord) => Pick<TrialRecord, "suite" | "item_id" | "trial"> = (r) => r): TrialLogRead<Pick<TrialRecord, "suite" | "item_id" | "trial">> {
  const file = join(dir, RUN_FILES.trials);
  if (!existsSync(file)) return { records: [], torn: 0, repeated: [] };
  const byKey = new Map<string, Pick<TrialRecord, "suite" | "item_id" | "trial">>();
  const repeated = new Set<string>();
  let torn = 0;
  let lineNo = 0;
  for (const line of fileLines(file)) {
    lineNo++;
    if (line.trim() === "") continue;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      torn++;
      continue;
    }
    const head = TrialHeadSchema.safeParse(data);
    if (!head.success) {
      const issue = head.error.issues[0]!;
      throw new InputError(file, `line ${lineNo}${issue.path.length ? `: ${issue.path.join(".")}` : ""}`, `not a trial record (${issue.message})`);
    }
    const key = trialKey(head.data);
    if (byKey.has(key)) repeated.add(key);
    byKey.set(key, project(data as TrialRecord));
  }
  const records = [...byKey.values()].sort((a, b) => compareTrials(a, b));
  return { records, torn, repeated: [...repeated].sort() };
}

/** The trial records of a run, one per key (last line wins); torn lines ignored. */
export function readTrials(dir: string): TrialRecord[] {
  return readTrialLog(dir).records;
}

/**
 * Append-only trial log: one line per finished trial. `append` writes the whole line with
 * writeSync before it returns, so a crash of the process (SIGKILL included) never loses a
 * returned record. Syncing to disk (against power loss) is a group commit: one fsync on the
 * thread pool at a time covering every line written before it, and a final fsync on close; an
 * fsync per line would stall the event loop, and with it every trial in flight.
 */
export class TrialLog {
  private readonly fd: number;
  private syncing = false;
  private unsynced = false;
  private closed = false;

  constructor(dir: string) {
    const file = join(dir, RUN_FILES.trials);
    this.fd = openSync(file, "a+");
    // A crash mid-write leaves a torn last line: end it, so the next record starts on its own line.
    const size = fstatSync(this.fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(this.fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) this.writeLine("");
    }
  }

  append(record: TrialRecord): void {
    this.writeLine(JSON.stringify(record));
  }

  private writeLine(text: string): void {
    const buf = Buffer.from(`${text}\n`, "utf8");
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off);
    this.unsynced = true;
    this.sync();
  }

  private sync(): void {
    if (this.syncing || this.closed || !this.unsynced) return;
    this.syncing = true;
    this.unsynced = false;
    fsync(this.fd, () => {
      this.syncing = false;
      this.sync();
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    fsyncSync(this.fd);
    closeSync(this.fd);
  }
}

/** Writes JSON atomically (temp file, fsync, rename): a reader sees the old or the new file, never half. */
export function writeJsonAtomic(file: string, value: unknown): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = openSync(tmp, "w");
  try {
    writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/**
 * Prepares `--out`: created when missing; a non-empty folder is refused unless `force`, which
 * removes the run files a previous run left (and nothing else).
 */
export function prepareOutDir(dir: string, force: boolean): void {
  if (existsSync(dir)) {
    const entries = readdirSync(dir);
    if (entries.length > 0 && !force) {
      throw new InputError(dir, "--out", "folder is not empty (use --resume DIR to complete a run, or --force to start over)");
    }
    if (force) for (const f of Object.values(RUN_FILES)) if (f !== RUN_FILES.lock) rmSync(join(dir, f), { force: true });
  }
  mkdirSync(dir, { recursive: true });
}

export interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
}

/** Whether a process is alive on this host (signal 0 probes without delivering). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes the run's lock file (created exclusively). A lock left by a dead process on this host is
 * stale and taken over; a live owner, or one on another host, is refused.
 */
export function acquireLock(dir: string, now: () => Date, alive = processAlive): () => void {
  const file = join(dir, RUN_FILES.lock);
  const owner: LockOwner = { pid: process.pid, host: hostname(), started_at: now().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(owner), { flag: "wx" });
      return () => rmSync(file, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      let held: Partial<LockOwner> = {};
      try {
        held = JSON.parse(readFileSync(file, "utf8")) as Partial<LockOwner>;
      } catch {
        // an empty or torn lock file: its writer died while creating it
      }
      const stale = held.host === owner.host && typeof held.pid === "number" && !alive(held.pid);
      if (!stale && held.pid !== undefined) {
        throw new InputError(dir, RUN_FILES.lock, `run is in use by pid ${held.pid} on ${held.host} since ${held.started_at} (delete the lock only if that process is gone)`);
      }
      unlinkSync(file);
    }
  }
  throw new InputError(dir, RUN_FILES.lock, "could not take the run lock");
}
