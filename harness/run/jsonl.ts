import { isUtf8 } from "node:buffer";
import { closeSync, fstatSync, fsync, fsyncSync, ftruncateSync, readSync, writeSync } from "node:fs";
import type { z } from "zod";
import { firstInvalidUtf8, openRunFile, pastLimit, readLimits } from "../../src/formats/files.ts";
import { InputError, issueAt } from "../../src/formats/load.ts";
import { maskedJson } from "../../src/secrets.ts";

/** Bytes read at a time: a log is never held whole in memory. */
const READ_CHUNK_BYTES = 1 << 20;

/** One line of a log: its text, and the file offset of its first byte that is not UTF-8 (null when it all is). */
interface FileLine {
  text: string;
  invalidUtf8At: number | null;
}

/**
 * The lines of an open log, one at a time (without the newline; the text after the last newline
 * is the last line). Read in chunks and decoded a line at a time: a newline byte never occurs
 * inside a UTF-8 sequence, so this decodes exactly as reading the whole file and splitting at
 * "\n" does, in memory proportional to the longest line rather than the whole file. The log and
 * each line are bounded (FIELDTEST_MAX_LOG_MB, FIELDTEST_MAX_LINE_MB): past either, the read stops
 * with bad input naming the limit.
 */
function* fileLines(file: string, fd: number): Generator<FileLine> {
  const { lineBytes, logBytes } = readLimits();
  // A file that cannot be read (no permission) is bad input naming it.
  const readable = <T>(io: () => T): T => {
    try {
      return io();
    } catch (e) {
      throw new InputError(file, "", `cannot read file (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
  };
  if (fstatSync(fd).size > logBytes) throw pastLimit(file, "logBytes");
  const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  let partial: Buffer[] = [];
  let partialBytes = 0;
  let lineNo = 1;
  let lineStart = 0;
  let total = 0;
  const line = (bytes: Buffer): FileLine => ({ text: bytes.toString("utf8"), invalidUtf8At: isUtf8(bytes) ? null : lineStart + firstInvalidUtf8(bytes) });
  const next = () => readable(() => readSync(fd, chunk, 0, chunk.length, null));
  for (let n = next(); n > 0; n = next()) {
    total += n;
    // The file may grow while it is read (a live run appends to it).
    if (total > logBytes) throw pastLimit(file, "logBytes");
    const bytes = chunk.subarray(0, n);
    let start = 0;
    for (let nl = bytes.indexOf(0x0a, start); nl !== -1; nl = bytes.indexOf(0x0a, start)) {
      const piece = bytes.subarray(start, nl);
      if (partialBytes + piece.length > lineBytes) throw pastLimit(file, "lineBytes", lineNo);
      yield line(partial.length === 0 ? piece : Buffer.concat([...partial, piece]));
      lineStart += partialBytes + piece.length + 1;
      lineNo++;
      partial = [];
      partialBytes = 0;
      start = nl + 1;
    }
    // The chunk buffer is reused: keep a copy of the unfinished line.
    if (start < n) {
      partialBytes += n - start;
      if (partialBytes > lineBytes) throw pastLimit(file, "lineBytes", lineNo);
      partial.push(Buffer.from(bytes.subarray(start)));
    }
  }
  yield line(Buffer.concat(partial));
}

function parseJson(line: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(line) };
  } catch (e) {
    // The message quotes the line: its control bytes would break the one line the error is shown on.
    return { ok: false, error: (e as Error).message.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?") };
  }
}

/** What a log's lines must be: `head` (when given) first tells a foreign line from a broken one. */
interface LineFormat<S extends z.ZodType> {
  schema: S;
  head?: z.ZodType;
  /** What one line is, for the message about a foreign line ("a trial record"). */
  what: string;
}

/**
 * Whether a line that is not valid JSON is what a crash leaves at the end of a log: a record cut
 * short (every record starts as a JSON object) or the zero bytes a power loss can leave past the
 * last write. Anything else is corruption. The reader and the writer judge by this one rule.
 */
function isTornTail(line: string): boolean {
  const rest = line.replace(/^[\s\0]+/, "");
  return rest === "" || rest.startsWith("{");
}

/**
 * Reads a JSON-lines log written by {@link JsonlLog}, validating every line, and hands each record
 * to `visit` with its 1-based line number and the line's text. The last non-empty line may be torn (a crash
 * mid-write; the next writer cuts it off): it is skipped and counted. Anywhere else a line that is
 * not JSON, that is not UTF-8, or that breaks the schema, is invalid input naming the file, the
 * line and the key path (or the byte offset). A missing file reads as empty (`found` false); a
 * link or anything but a regular file is refused (see openRunFile). `tornAnywhere` is for logs
 * written before writers cut a torn line off (they ended it and went on after it): a line that
 * is not JSON is skipped and counted wherever it is.
 */
export function readJsonl<S extends z.ZodType>(
  file: string,
  format: LineFormat<S>,
  visit: (record: z.output<S>, line: number, text: string) => void,
  { tornAnywhere = false }: { tornAnywhere?: boolean } = {},
): { torn: number; found: boolean } {
  const fd = openRunFile(file, "read");
  if (fd === null) return { torn: 0, found: false };
  let lineNo = 0;
  let torn = 0;
  let pending: { line: number; error: string } | null = null;
  try {
    for (const { text: line, invalidUtf8At } of fileLines(file, fd)) {
      lineNo++;
      if (line.trim() === "") continue;
      if (pending)
        throw new InputError(file, "", `not valid JSON (${pending.error}); only the last line can be torn by a crash, so this one is corrupt`, pending.line);
      const parsed = parseJson(line);
      if (!parsed.ok) {
        if (!isTornTail(line)) throw new InputError(file, "", `not valid JSON (${parsed.error}), and not the start of a record a crash cut short`, lineNo);
        torn++;
        if (!tornAnywhere) pending = { line: lineNo, error: parsed.error };
        continue;
      }
      // A torn line may end inside a character; a whole record may not.
      if (invalidUtf8At !== null) throw new InputError(file, "", `not valid UTF-8 (byte offset ${invalidUtf8At})`, lineNo);
      const head = format.head?.safeParse(parsed.value);
      if (head && !head.success) {
        const { path, detail } = issueAt(head.error.issues[0]!, parsed.value);
        throw new InputError(file, path || "(root)", `not ${format.what} (${detail})`, lineNo);
      }
      const result = format.schema.safeParse(parsed.value);
      if (!result.success) {
        const { path, detail } = issueAt(result.error.issues[0]!, parsed.value);
        throw new InputError(file, path || "(root)", detail, lineNo);
      }
      visit(result.data, lineNo, line);
    }
  } finally {
    closeSync(fd);
  }
  return { torn, found: true };
}

/** Newline, carriage return, space and tab: what may follow the last line. */
const ASCII_SPACE = new Set([0x0a, 0x0d, 0x20, 0x09]);

/** Bytes scanned back from the end at a time when looking for the last line. */
const TAIL_CHUNK_BYTES = 1 << 16;

/** The last non-empty line of the file (without trailing whitespace) and the offset where it starts; bounded as a line the reader reads. */
function lastLine(file: string, fd: number, size: number): { start: number; text: string } {
  const { lineBytes } = readLimits();
  let tail = Buffer.alloc(0);
  for (let pos = size; pos > 0;) {
    if (tail.length > lineBytes) throw pastLimit(file, "lineBytes");
    const n = Math.min(TAIL_CHUNK_BYTES, pos);
    pos -= n;
    const chunk = Buffer.allocUnsafe(n);
    readSync(fd, chunk, 0, n, pos);
    tail = Buffer.concat([chunk, tail]);
    let content = tail.length;
    while (content > 0 && ASCII_SPACE.has(tail[content - 1]!)) content--;
    const nl = content === 0 ? -1 : tail.lastIndexOf(0x0a, content - 1);
    if (nl !== -1 || pos === 0) return { start: pos + nl + 1, text: tail.subarray(nl + 1, content).toString("utf8") };
  }
  return { start: 0, text: "" };
}

/** The longest a written line waits for its fsync (power loss; a process crash loses nothing written). */
const SYNC_INTERVAL_MS = 100;

/**
 * An append-only JSON-lines log. `append` writes the whole line with writeSync before it returns,
 * so a crash of the process (SIGKILL included) never loses a returned line. Syncing to disk
 * (against power loss) is a group commit: one fsync on the thread pool at a time, at most one per
 * SYNC_INTERVAL_MS, covering every line written before it, and a final fsync on close; an fsync per
 * line would stall the event loop, and with it every trial in flight.
 *
 * Opening a log that a crash left with a torn last line cuts that line off (it was never a
 * record), so a torn line can only ever be the last one and anything else malformed is corruption.
 */
export class JsonlLog {
  private readonly fd: number;
  private syncing = false;
  private unsynced = false;
  private closed = false;

  constructor(readonly file: string) {
    // Never through a link, only a regular file (see openRunFile): a log appends to itself alone.
    this.fd = openRunFile(file, "append")!;
    try {
      this.endCleanly();
    } catch (e) {
      closeSync(this.fd);
      throw e;
    }
  }

  /** Cuts a torn tail off, or ends a last line that lacks its newline, so the next line starts a line of its own. */
  private endCleanly(): void {
    const size = fstatSync(this.fd).size;
    if (size === 0) return;
    const last = lastLine(this.file, this.fd, size);
    // A torn tail is cut off; a corrupt last line is left for the reader to refuse, never erased.
    if (last.text.trim() !== "" && !parseJson(last.text).ok && isTornTail(last.text)) {
      ftruncateSync(this.fd, last.start);
      return;
    }
    const end = Buffer.alloc(1);
    readSync(this.fd, end, 0, 1, size - 1);
    if (end[0] !== 0x0a) this.writeLine("");
  }

  /**
   * Appends one line, every credential masked (src/secrets.ts). After close it does nothing: a
   * send still in flight when a sweep is abandoned must not write to a reused descriptor.
   */
  append(record: unknown): void {
    if (this.closed) return;
    this.writeLine(maskedJson(record));
  }

  private writeLine(text: string): void {
    const line = `${text}\n`;
    // The text goes to the descriptor as it is (no Buffer of our own); a short write, rare on a file, finishes from its bytes.
    const written = writeSync(this.fd, line);
    if (written < Buffer.byteLength(line, "utf8")) {
      const bytes = Buffer.from(line, "utf8");
      for (let off = written; off < bytes.length;) off += writeSync(this.fd, bytes, off);
    }
    this.unsynced = true;
    this.sync();
  }

  private sync(): void {
    if (this.syncing || this.closed || !this.unsynced) return;
    this.syncing = true;
    this.unsynced = false;
    const started = Date.now();
    fsync(this.fd, () => {
      // At most one fsync per SYNC_INTERVAL_MS: a fast sweep would otherwise keep one running all the time.
      setTimeout(
        () => {
          this.syncing = false;
          this.sync();
        },
        Math.max(0, started + SYNC_INTERVAL_MS - Date.now()),
      ).unref();
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    fsyncSync(this.fd);
    closeSync(this.fd);
  }
}
