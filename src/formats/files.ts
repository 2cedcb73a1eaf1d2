import { isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from "node:fs";
import { InputError } from "./input-error.ts";

const MiB = 1024 * 1024;

/**
 * How much fieldtest reads of one file, each limit raised by its environment variable (in MiB):
 * a file read whole (goal, plan, critique, config, policy, sim profile, pack file, baseline, and a
 * run folder's JSON files), one line of a JSON-lines log, and a whole log (trials.jsonl,
 * spend.jsonl). Past a limit the read stops with one line naming it, never a process that grows
 * until the machine stops it.
 */
export const READ_LIMITS = {
  fileBytes: { env: "FIELDTEST_MAX_FILE_MB", mb: 16, what: "a file read whole" },
  lineBytes: { env: "FIELDTEST_MAX_LINE_MB", mb: 64, what: "one line of a log" },
  logBytes: { env: "FIELDTEST_MAX_LOG_MB", mb: 2048, what: "a log" },
} as const;

type ReadLimit = keyof typeof READ_LIMITS;
export type ReadLimits = Record<ReadLimit, number>;

const LIMIT_NAMES = Object.keys(READ_LIMITS) as ReadLimit[];

export const DEFAULT_READ_LIMITS: ReadLimits = Object.fromEntries(LIMIT_NAMES.map((k) => [k, READ_LIMITS[k].mb * MiB])) as ReadLimits;

/** A positive decimal number of MiB, as an environment variable writes it. */
const MB_TEXT = /^(\d+(\.\d*)?|\.\d+)$/;

/** The limits an environment sets (each variable absent or empty keeps its default); a bad value is bad input naming the variable. */
export function readLimitsFrom(env: Readonly<Record<string, string | undefined>>): ReadLimits {
  const limits = { ...DEFAULT_READ_LIMITS };
  for (const name of LIMIT_NAMES) {
    const text = env[READ_LIMITS[name].env]?.trim();
    if (text === undefined || text === "") continue;
    const mb = MB_TEXT.test(text) ? Number(text) : Number.NaN;
    if (!(mb > 0)) throw new InputError("environment", READ_LIMITS[name].env, `expected a positive number of MiB, got ${JSON.stringify(text)}`);
    limits[name] = Math.round(mb * MiB);
  }
  return limits;
}

/** The limits in force: the defaults until a command sets its environment's (harness/cli/program.ts). */
let current: ReadLimits = DEFAULT_READ_LIMITS;

/** Puts `limits` in force and returns the ones they replace. */
export function setReadLimits(limits: ReadLimits): ReadLimits {
  const before = current;
  current = limits;
  return before;
}

export const readLimits = (): ReadLimits => current;

/** The error for a file (or a line of it) past a limit: names the limit and how to raise it. */
export function pastLimit(file: string, limit: ReadLimit, line?: number): InputError {
  const { env, what } = READ_LIMITS[limit];
  const mb = Number((current[limit] / MiB).toPrecision(6));
  return new InputError(file, "", `larger than the ${mb} MiB ${what} may be (set ${env}, in MiB, to raise it)`, line);
}

/** The offset of the first byte that is no part of a well-formed UTF-8 sequence (RFC 3629), or -1 when there is none. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    // The continuation bytes a lead takes, and the range of the first (which rules out overlong forms, surrogates and code points past U+10FFFF).
    const [more, low, high] =
      lead >= 0xc2 && lead <= 0xdf
        ? [1, 0x80, 0xbf]
        : lead === 0xe0
          ? [2, 0xa0, 0xbf]
          : lead === 0xed
            ? [2, 0x80, 0x9f]
            : lead >= 0xe1 && lead <= 0xef
              ? [2, 0x80, 0xbf]
              : lead === 0xf0
                ? [3, 0x90, 0xbf]
                : lead >= 0xf1 && lead <= 0xf3
                  ? [3, 0x80, 0xbf]
                  : lead === 0xf4
                    ? [3, 0x80, 0x8f]
                    : [0, 0, 0];
    if (more === 0) return i;
    for (let k = 1; k <= more; k++) {
      const b = bytes[i + k];
      if (b === undefined || b < (k === 1 ? low : 0x80) || b > (k === 1 ? high : 0xbf)) return i;
    }
    i += more + 1;
  }
  return -1;
}

/**
 * Bytes as UTF-8 text; bytes that are not UTF-8 are bad input naming the file and the byte's
 * offset (`at` is where `bytes` start in the file), never text quietly turned into U+FFFD.
 */
function utf8Text(bytes: Buffer, file: string, at = 0, line?: number): string {
  if (isUtf8(bytes)) return bytes.toString("utf8");
  throw new InputError(file, "", `not valid UTF-8 (byte offset ${at + firstInvalidUtf8(bytes)})`, line);
}

/** Every byte of an open file up to `limit` (bad input past it), read to its end. */
function readAll(fd: number, file: string, limit: ReadLimit): Buffer {
  const cap = current[limit];
  const stat = fstatSync(fd);
  if (stat.isFile() && stat.size > cap) throw pastLimit(file, limit);
  // A regular file in one read, as its size says; a pipe or device a chunk at a time.
  const chunk = Buffer.allocUnsafe(stat.isFile() ? Math.min(stat.size + 1, cap + 1) : 64 * 1024);
  const parts: Buffer[] = [];
  let total = 0;
  for (let n = readSync(fd, chunk, 0, chunk.length, null); n > 0; n = readSync(fd, chunk, 0, chunk.length, null)) {
    total += n;
    if (total > cap) throw pastLimit(file, limit);
    parts.push(Buffer.from(chunk.subarray(0, n)));
  }
  return Buffer.concat(parts, total);
}

/** Why a path could not be opened, as one line of bad input. */
function unreadable(file: string, code: string | undefined): InputError {
  return new InputError(
    file,
    "",
    code === "ENOENT" ? "file not found" : code === "EISDIR" ? "is a folder, not a file" : `cannot read file (${code ?? "error"})`,
  );
}

/**
 * An input file's text (goal, plan, critique, config, policy, profile, pack, baseline): followed
 * through links and read from a pipe as the user named it, bounded by FIELDTEST_MAX_FILE_MB, and
 * strict UTF-8. A file that cannot be read is bad input naming it.
 */
export function readText(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (e) {
    throw unreadable(file, (e as NodeJS.ErrnoException).code);
  }
  try {
    return utf8Text(readAll(fd, file, "fileBytes"), file);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw unreadable(file, (e as NodeJS.ErrnoException).code);
  } finally {
    closeSync(fd);
  }
}

/** What a file that is not a regular file is, for the message that refuses it. */
function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return "a folder";
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  return stat.isSocket() ? "a socket" : "a special file";
}

const linkRefused = (file: string) => new InputError(file, "", "is a symbolic link, which fieldtest does not follow here: put the file itself in its place");
const notAFile = (file: string, kind: string) => new InputError(file, "", kind === "a folder" ? "is a folder, not a file" : `is ${kind}, not a regular file`);

/**
 * Refuses a path fieldtest opens as itself (a run folder's files, a file it replaces) when it is
 * a symbolic link or anything but a regular file; a missing path passes.
 */
export function checkPlainFile(file: string): void {
  let stat: Stats;
  try {
    stat = lstatSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return;
    throw unreadable(file, code);
  }
  if (stat.isSymbolicLink()) throw linkRefused(file);
  if (!stat.isFile()) throw notAFile(file, kindOf(stat));
}

const { O_RDONLY, O_RDWR, O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = constants;

/**
 * How a run folder's files are opened: never through a symbolic link (O_NOFOLLOW), and without
 * waiting on a FIFO that has no writer (O_NONBLOCK; a regular file reads as ever).
 */
const RUN_FILE_FLAGS = { read: O_RDONLY | O_NOFOLLOW | O_NONBLOCK, append: O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK } as const;

/**
 * Opens a file of a run folder for reading or appending. It is refused (bad input naming it)
 * when it is a symbolic link or anything but a regular file (a FIFO, a device, a folder): a run
 * folder may have been put together by someone else, and its files must never write or read
 * through to something outside it, or block. For reading, a missing file is null. A failure of
 * the storage (a full disk, no permission to create it) is thrown as the system gave it.
 */
export function openRunFile(file: string, how: "read" | "append"): number | null {
  let fd: number;
  try {
    fd = openSync(file, RUN_FILE_FLAGS[how], 0o666);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && how === "read") return null;
    if (code === "ELOOP") throw linkRefused(file);
    if (code === "EISDIR") throw notAFile(file, "a folder");
    // Opening a FIFO or a socket to write without a reader.
    if (code === "ENXIO") throw notAFile(file, "a FIFO or a socket");
    if (how === "append") throw e;
    throw unreadable(file, code);
  }
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    throw notAFile(file, kindOf(stat));
  }
  return fd;
}

/** A run folder's file read whole (manifest.json, summary.json, the lock), as openRunFile opens it; null when it is missing. */
export function readRunText(file: string): { text: string; stat: Stats } | null {
  const fd = openRunFile(file, "read");
  if (fd === null) return null;
  try {
    const stat = fstatSync(fd);
    return { text: utf8Text(readAll(fd, file, "fileBytes"), file), stat };
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw unreadable(file, (e as NodeJS.ErrnoException).code);
  } finally {
    closeSync(fd);
  }
}
