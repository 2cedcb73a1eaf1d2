import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { readRunText } from "../../src/formats/files.ts";
import { InputError } from "../../src/formats/load.ts";
import { makeOutputDir } from "../output.ts";
import { DEVICE_FAILURES, RUN_FILES } from "./store.ts";

/** Who holds a run's lock. `proc_start` (Linux) tells the owner from a later process that reused its pid. */
const LockOwnerSchema = z.looseObject({
  pid: z.number().int().positive(),
  host: z.string(),
  started_at: z.string(),
  proc_start: z.string().nullable().optional(),
  /** The owner writes what its inputs rebuild (a merge): should it die before its manifest, what it left may be removed. */
  rebuildable: z.boolean().optional(),
});
type LockOwner = z.output<typeof LockOwnerSchema>;

/** How a process of this host looks from outside. */
export type ProcessState = { state: "gone" } | { state: "zombie" } | { state: "alive"; start: string | null };

/**
 * A process's state from /proc (Linux): a zombie (killed, not yet reaped: common in containers
 * without an init) is as good as gone. Elsewhere signal 0 tells alive from gone.
 */
function processState(pid: number): ProcessState {
  let stat: string | null = null;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    if (existsSync("/proc/self/stat")) return { state: "gone" };
  }
  if (stat !== null) {
    // `pid (comm) state ...`: comm may hold spaces and parentheses, so split after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z" || fields[0] === "X") return { state: "zombie" };
    return { state: "alive", start: fields[19] ?? null };
  }
  try {
    process.kill(pid, 0);
    return { state: "alive", start: null };
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM" ? { state: "alive", start: null } : { state: "gone" };
  }
}

/** A lock file with no owner in it is being written for this long at most; an older one was left by a crash. */
export const EMPTY_LOCK_GRACE_MS = 5_000;

export interface LockOptions {
  now: () => Date;
  /** Take a lock held on another host (whose owner cannot be checked from here). */
  breakLock?: boolean;
  /** Where a take-over is announced (one line each). */
  notify?: (line: string) => void;
  host?: string;
  probe?: (pid: number) => ProcessState;
  pid?: number;
  /** This writer writes what its inputs rebuild (see LockOwner): said in the lock for whoever finds it stale. */
  rebuildable?: boolean;
}

type Judgement = { verdict: "stale"; why: string } | { verdict: "held"; why: string } | { verdict: "foreign"; owner: LockOwner };

/** The owner a lock file's text names, or null when it names none (empty, unreadable). */
function parseOwner(text: string): LockOwner | null {
  try {
    const parsed = LockOwnerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function judge(text: string, ageMs: number, self: { host: string }, probe: (pid: number) => ProcessState): Judgement {
  const owner = parseOwner(text);
  if (owner === null) {
    // An owner creates the file and writes it at once: empty and young means it is doing that now.
    if (ageMs < EMPTY_LOCK_GRACE_MS)
      return {
        verdict: "held",
        why: `the lock file is ${text.trim() === "" ? "empty" : "unreadable"} and ${Math.round(ageMs / 1000)} s old: another fieldtest is taking it right now; try again in a few seconds`,
      };
    return { verdict: "stale", why: `an ${text.trim() === "" ? "empty" : "unreadable"} lock file left by a crash` };
  }
  const who = `pid ${owner.pid} on ${owner.host} (since ${owner.started_at})`;
  if (owner.host !== self.host) return { verdict: "foreign", owner };
  const state = probe(owner.pid);
  if (state.state === "gone") return { verdict: "stale", why: `${who} is gone` };
  if (state.state === "zombie") return { verdict: "stale", why: `${who} was killed (a zombie not yet reaped)` };
  if (owner.proc_start && state.start && owner.proc_start !== state.start)
    return { verdict: "stale", why: `${who} is gone (its pid now belongs to another process)` };
  return { verdict: "held", why: `run is in use by ${who}; wait for it to finish` };
}

/** The lock file's text and age, read as a run folder's files are (never through a link); null when there is none. */
function readLock(file: string): { text: string; ageMs: number } | null {
  const read = readRunText(file);
  return read === null ? null : { text: read.text, ageMs: Date.now() - read.stat.mtimeMs };
}

/**
 * Creates the lock file holding `text`, exclusively (never through a link or over another's). A
 * lock that cannot be written whole (a full disk) is removed: left empty, it would read as one
 * being taken right now.
 */
function createLock(file: string, text: string): void {
  const fd = openSync(file, "wx");
  try {
    const bytes = Buffer.from(text, "utf8");
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
  } catch (e) {
    closeSync(fd);
    rmSync(file, { force: true });
    throw e;
  }
  closeSync(fd);
}

/**
 * Takes the run's lock file (created exclusively) and returns its release. A lock whose owner on
 * this host is gone, a zombie, or whose pid was reused, is stale and taken over (said on
 * `notify`); a live owner is refused. A lock from another host is refused unless `breakLock`,
 * which takes it and names its owner. A take-over removes the stale file only while it is still
 * the one judged (a file already gone is no error) and then creates its own exclusively: that
 * narrows, but cannot close, the window in which two processes taking over at once both win.
 */
export function acquireLock(dir: string, o: LockOptions): () => void {
  const file = join(dir, RUN_FILES.lock);
  const self = { host: o.host ?? hostname(), pid: o.pid ?? process.pid };
  const probe = o.probe ?? processState;
  const own = processState(self.pid);
  const owner: LockOwner = {
    pid: self.pid,
    host: self.host,
    started_at: o.now().toISOString(),
    proc_start: own.state === "alive" ? own.start : null,
    ...(o.rebuildable ? { rebuildable: true } : {}),
  };
  const text = JSON.stringify(owner);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      createLock(file, text);
      return () => {
        // Removed only while it is still ours (a --break-lock elsewhere may have taken it). A lock
        // that cannot be removed (the folder turned unwritable) must not replace the error the run
        // ends on: once this process is gone it is stale, and the next run takes it over.
        try {
          if (readLock(file)?.text === text) rmSync(file, { force: true });
        } catch {
          // left for the next run to take over
        }
      };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A failing device (a full disk) is the storage's failure (exit 3, as a run's records failing);
      // a folder the user may not write is bad input, named below.
      if (DEVICE_FAILURES.has(code ?? "")) throw e;
      if (code !== "EEXIST") throw new InputError(dir, RUN_FILES.lock, `cannot create the lock file (${code ?? String(e)})`);
    }
    const held = readLock(file);
    if (held === null) continue;
    const j = judge(held.text, held.ageMs, self, probe);
    if (j.verdict === "held") throw new InputError(dir, RUN_FILES.lock, j.why);
    if (j.verdict === "foreign") {
      const who = `pid ${j.owner.pid} on host ${j.owner.host} (since ${j.owner.started_at})`;
      if (!o.breakLock)
        throw new InputError(
          dir,
          RUN_FILES.lock,
          `run is locked by ${who}, another host, whose process cannot be checked from here; if it is gone, take the lock with --break-lock`,
        );
      o.notify?.(`--break-lock: breaking the lock of ${who}`);
    } else o.notify?.(`taking over a stale lock: ${j.why}`);
    if (readLock(file)?.text === held.text) rmSync(file, { force: true });
  }
  throw new InputError(dir, RUN_FILES.lock, "could not take the run lock (another process keeps taking it)");
}

/** What `--force` removes: a run's own files (not its lock) and the temp files of an interrupted atomic write. */
const FORCE_REMOVES: ReadonlySet<string> = new Set(Object.values(RUN_FILES).filter((f) => f !== RUN_FILES.lock));
const isRunFile = (name: string) => FORCE_REMOVES.has(name.replace(/\.tmp-\d+$/, ""));

/**
 * Whether a process may be writing the run now: its lock is held by a live process of this host,
 * or by one of another host (which cannot be checked from here). A run marked running whose lock
 * is missing or stale was stopped by a crash or a kill.
 */
export function lockIsHeld(dir: string): boolean {
  const held = readLock(join(dir, RUN_FILES.lock));
  return held !== null && judge(held.text, held.ageMs, { host: hostname() }, processState).verdict !== "stale";
}

/** The owner a run's lock file names, or null when there is none or it names none. */
function lockOwner(dir: string): LockOwner | null {
  const held = readLock(join(dir, RUN_FILES.lock));
  return held === null ? null : parseOwner(held.text);
}

/**
 * Removes the run files a failed or killed writer of rebuildable output left (a merge that died
 * before its manifest): its inputs write them again. Returns the names removed.
 */
export function removeRunFiles(dir: string): string[] {
  const removed = readdirSync(dir).filter(isRunFile);
  for (const f of removed) rmSync(join(dir, f), { force: true });
  return removed;
}

/**
 * Claims `--out` for a new run and returns the lock's release. A missing folder is created; a
 * non-empty one is refused unless `force`. The lock is taken before anything is deleted, so a
 * folder that a live run holds is refused and left untouched; only then does `force` remove the
 * run files a previous run left (and nothing else). What a rebuildable writer left when it died
 * before its manifest (its lock says so, and the lock is stale) is removed as `force` would.
 */
export function claimOutDir(dir: string, o: LockOptions & { force: boolean }): () => void {
  const refuseNonEmpty = () => new InputError(dir, "--out", "folder is not empty (use --resume DIR to complete a run, or --force to start over)");
  makeOutputDir(dir, "--out");
  const entries = readdirSync(dir);
  const unfinished =
    !entries.includes(RUN_FILES.manifest) && lockOwner(dir)?.rebuildable === true && entries.every((f) => f === RUN_FILES.lock || isRunFile(f));
  // A lock alone is what a run interrupted before its first file leaves: the lock decides (a live
  // run's refuses, a stale one is taken over), so the folder is not a dead end.
  if (!o.force && !unfinished && entries.some((f) => f !== RUN_FILES.lock)) throw refuseNonEmpty();
  const release = acquireLock(dir, o);
  try {
    if (o.force) removeRunFiles(dir);
    // Judged again under the lock: a merge that took the folder over meanwhile and finished has written its manifest.
    else if (unfinished && !readdirSync(dir).includes(RUN_FILES.manifest)) {
      const removed = removeRunFiles(dir);
      if (removed.length > 0) o.notify?.(`removing what an unfinished write left (no manifest.json; its inputs rebuild it): ${removed.join(", ")}`);
    }
    if (!o.force && readdirSync(dir).some((f) => f !== RUN_FILES.lock)) throw refuseNonEmpty();
  } catch (e) {
    release();
    throw e;
  }
  return release;
}
