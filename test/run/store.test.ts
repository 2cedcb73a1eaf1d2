import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_READ_LIMITS, setReadLimits } from "../../src/formats/files.ts";
import { acquireLock, claimOutDir, EMPTY_LOCK_GRACE_MS, type ProcessState } from "../../harness/run/lock.ts";
import { readTrialLog, readTrials, RUN_FILES, TrialLog, writeFileAtomic } from "../../harness/run/store.ts";
import { InputError } from "../../src/formats/load.ts";
import type { TrialRecord } from "../../src/formats/records.ts";
import { engineTrial } from "../metrics/builders.ts";

const dir = () => mkdtempSync(join(tmpdir(), "ft-store-"));
const rec = (item_id: string, trial: number, status: TrialRecord["status"] = "approved") => engineTrial(item_id, trial, status);

describe("trials.jsonl", () => {
  it("ignores a torn last line and keeps the last line of a key", () => {
    const d = dir();
    const log = new TrialLog(d);
    log.append(rec("a", 0, "error"));
    log.append(rec("b", 0));
    log.append(rec("a", 0, "escalated"));
    log.close();
    appendFileSync(join(d, RUN_FILES.trials), '{"schema_version":1,"suite":"corpus","item_id":"c","tri');
    const read = readTrialLog(d);
    expect(read.torn).toBe(1);
    expect(read.repeated).toEqual(["corpus/a/0"]);
    expect(read.records.map((r) => [r.item_id, r.status])).toEqual([
      ["a", "escalated"],
      ["b", "approved"],
    ]);
  });

  it("a key's second line supersedes an error record; the same record again is read once and listed; a different one is bad input naming the key and both lines", () => {
    const d = dir();
    const write = (...records: TrialRecord[]) => writeFileSync(join(d, RUN_FILES.trials), records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    // A --retry-errors re-run: an error record, then any record of its key (an error again included).
    write(rec("a", 0, "error"), rec("a", 0, "error"), rec("a", 0, "approved"));
    expect(readTrialLog(d)).toMatchObject({ duplicates: [], repeated: ["corpus/a/0"], lines: 3 });
    expect(readTrials(d).map((r) => r.status)).toEqual(["approved"]);
    // The same record written twice (a line copied, a merge input given twice over): one record, and a warning's worth.
    write(rec("a", 0), rec("b", 0), rec("a", 0));
    expect(readTrialLog(d)).toMatchObject({ duplicates: [{ key: "corpus/a/0", lines: [1, 3] }], lines: 3 });
    expect(readTrials(d).map((r) => r.item_id)).toEqual(["a", "b"]);
    // Two different records of one trial: which is the trial cannot be known.
    const file = join(d, RUN_FILES.trials);
    const conflict = `trial corpus/a/0 has two different records, lines 2 and 4: only an error record may be followed by another record of its key (a --retry-errors re-run)`;
    write(rec("a", 0, "error"), rec("a", 0, "approved"), rec("b", 0), rec("a", 0, "escalated"));
    expect(() => readTrials(d)).toThrow(`${file}:4: ${conflict}`);
    write(rec("b", 0), { ...rec("a", 0), latency_ms: 1 }, rec("c", 0), { ...rec("a", 0), latency_ms: 2 });
    expect(() => readTrials(d)).toThrow(`${file}:4: trial corpus/a/0 has two different records, lines 2 and 4:`);
  });

  it("a log reopened after a torn write cuts the torn line off, so a torn line is only ever the last", () => {
    const d = dir();
    for (const tail of ['{"schema_version":1,"su', '{"schema_version":1,"su\n\n']) {
      writeFileSync(join(d, RUN_FILES.trials), `${JSON.stringify(rec("a", 0))}\n${tail}`);
      const log = new TrialLog(d);
      log.append(rec("b", 1));
      log.close();
      expect(readTrials(d).map((r) => r.item_id)).toEqual(["a", "b"]);
      expect(readTrialLog(d).torn).toBe(0);
      expect(readFileSync(join(d, RUN_FILES.trials), "utf8").split("\n")).toHaveLength(3);
    }
    // a complete last record without its newline is kept
    writeFileSync(join(d, RUN_FILES.trials), JSON.stringify(rec("a", 0)));
    const log = new TrialLog(d);
    log.append(rec("b", 1));
    log.close();
    expect(readTrials(d).map((r) => r.item_id)).toEqual(["a", "b"]);
  });

  it("a torn or invalid line anywhere but last is invalid input naming the file, the line and the key path", () => {
    const d = dir();
    const file = join(d, RUN_FILES.trials);
    const good = JSON.stringify(rec("a", 0));
    const cases: [string, RegExp][] = [
      [`${good}\n{"schema_version":1,"su\n${good}\n`, /trials\.jsonl:2: not valid JSON .*only the last line can be torn/],
      [
        `${good}\n${JSON.stringify({ schema_version: 1, suite: "corpus", item_id: "b", trial: 0, status: "approved" })}\n`,
        /trials\.jsonl:2: escalation_reason: /,
      ],
      [`${JSON.stringify({ ...rec("b", 0), calls: "oops" })}\n`, /trials\.jsonl:1: calls: .*expected array/],
      [`${JSON.stringify({ ...rec("b", 0), rounds: [{ ...rec("b", 0).rounds[0], plan: { tasks: 3 } }] })}\n`, /trials\.jsonl:1: rounds\[0\]\.plan\.id: /],
      [`${JSON.stringify({ ...rec("b", 0), extra: 1 })}\n`, /trials\.jsonl:1: extra: unknown key "extra"/],
    ];
    for (const [text, message] of cases) {
      writeFileSync(file, text);
      expect(() => readTrials(d)).toThrow(message);
    }
  });

  it("a missing log reads as empty; a foreign line is an input error", () => {
    const d = dir();
    expect(readTrials(d)).toEqual([]);
    writeFileSync(join(d, RUN_FILES.trials), '{"hello": 1}\n');
    expect(() => readTrials(d)).toThrow(/trials\.jsonl:1: schema_version: not a trial record/);
  });

  it("a last line that is no record cut short, or a folder in the log's place, is an input error naming the file, never an empty run", () => {
    const d = dir();
    // Random bytes with no newline were read as one torn line: a report of 0 trials, exit 0.
    writeFileSync(join(d, RUN_FILES.trials), Buffer.from([0x07, 0xdc, 0x91, 0x00, 0x25, 0x0a, 0xff].slice(0, 5)));
    expect(() => readTrials(d)).toThrow(/trials\.jsonl:1: not valid JSON \([^\n\u0000\u0007]*\), and not the start of a record a crash cut short$/);
    // A record cut short is still what a crash leaves, and is skipped.
    writeFileSync(join(d, RUN_FILES.trials), `${JSON.stringify(rec("a", 0))}\n{"schema_version":1,"suite":"cor`);
    expect(readTrialLog(d).torn).toBe(1);
    // So are the zero bytes a power loss leaves past the last write: the reader skips them and the
    // writer cuts them off, so the run stays resumable (the reader refused them while the writer cut them).
    writeFileSync(join(d, RUN_FILES.trials), Buffer.concat([Buffer.from(`${JSON.stringify(rec("a", 0))}\n`), Buffer.alloc(64)]));
    expect(readTrialLog(d)).toMatchObject({ torn: 1, lines: 1 });
    new TrialLog(d).close();
    expect(readFileSync(join(d, RUN_FILES.trials), "utf8")).toBe(`${JSON.stringify(rec("a", 0))}\n`);
    // A corrupt last line is left for the reader to refuse: opening the log for writing never erases it.
    writeFileSync(join(d, RUN_FILES.trials), `${JSON.stringify(rec("a", 0))}\nnot a record`);
    new TrialLog(d).close();
    expect(readFileSync(join(d, RUN_FILES.trials), "utf8")).toContain("not a record");
    expect(() => readTrials(d)).toThrow(/and not the start of a record a crash cut short$/);
    const e = dir();
    mkdirSync(join(e, RUN_FILES.trials));
    expect(() => readTrials(e)).toThrow(/trials\.jsonl: is a folder, not a file$/);
  });

  it("reads lines longer than a read chunk, multi-byte text across chunk edges and a torn tail as the whole file would", () => {
    const d = dir();
    // 1.5 MB and 4 MB lines (the reader takes 1 MiB at a time); 2- and 4-byte characters at odd offsets.
    const big = [
      { ...rec("a", 0), error: `x${"é".repeat(750_000)}` },
      rec("b", 0),
      { ...rec("c", 2), error: `${"🙂".repeat(1_000_000)}ü` },
      { ...rec("c", 10), error: "" },
    ];
    writeFileSync(join(d, RUN_FILES.trials), `${big.map((r) => JSON.stringify(r)).join("\n")}\n\n{"schema_version":1,"suite":"corpus","item_id":"é`);
    const read = readTrialLog(d);
    expect(read.torn).toBe(1);
    expect(read.records).toEqual(big);
    // The same records and line numbers as reading the whole file and splitting it.
    writeFileSync(join(d, RUN_FILES.trials), `${big.map((r) => JSON.stringify(r)).join("\n")}\n\n{"hello": 1}\n`);
    const lines = readFileSync(join(d, RUN_FILES.trials), "utf8").split("\n");
    expect(() => readTrials(d)).toThrow(new RegExp(`:${lines.indexOf('{"hello": 1}') + 1}: schema_version: not a trial record`));
  });

  it("reads a round written before carry-forward lapses were recorded, and keeps them where they are", () => {
    const d = dir();
    const log = new TrialLog(d);
    const lapsed = [{ key: "critic:weak_rollback:old_task:missing_rollback:old_task:", task_id: "old_task" }];
    const older = engineTrial("a", 0, "approved", { rounds: [{}] });
    const newer = engineTrial("b", 0, "approved", { rounds: [{ lapsed: [] }, { lapsed }] });
    log.append(older);
    log.append(newer);
    log.close();
    const [a, b] = readTrials(d);
    expect(a!.rounds[0]).not.toHaveProperty("carry_forward_lapsed");
    expect(b!.rounds.map((r) => r.carry_forward_lapsed)).toEqual([[], lapsed]);
  });

  it("projects each record as it is read", () => {
    const d = dir();
    const log = new TrialLog(d);
    for (const id of ["b", "a"]) log.append(rec(id, 0));
    log.close();
    expect(readTrialLog(d, (r) => ({ suite: r.suite, item_id: r.item_id, trial: r.trial })).records).toEqual([
      { suite: "corpus", item_id: "a", trial: 0 },
      { suite: "corpus", item_id: "b", trial: 0 },
    ]);
  });
});

const probeOf = (states: Record<number, ProcessState>) => (pid: number) => states[pid] ?? { state: "gone" as const };
const lockFile = (d: string) => join(d, RUN_FILES.lock);
const owner = (pid: number, host = hostname(), extra: Record<string, unknown> = {}) =>
  JSON.stringify({ pid, host, started_at: "2026-01-01T00:00:00.000Z", ...extra });

describe("run folder", () => {
  const now = () => new Date();

  it("--out refuses a non-empty folder unless forced, and force removes only run files", () => {
    const d = dir();
    writeFileSync(join(d, RUN_FILES.trials), "x\n");
    writeFileSync(join(d, RUN_FILES.spend), "x\n");
    writeFileSync(join(d, `${RUN_FILES.manifest}.tmp-123`), "{");
    writeFileSync(join(d, "notes.txt"), "mine");
    expect(() => claimOutDir(d, { now, force: false })).toThrow(/not empty/);
    expect(existsSync(join(d, RUN_FILES.lock))).toBe(false);
    claimOutDir(d, { now, force: true })();
    expect(readdirSync(d)).toEqual(["notes.txt"]);
    claimOutDir(join(d, "new", "deep"), { now, force: false })();
    expect(existsSync(join(d, "new", "deep"))).toBe(true);
  });

  it("--out holding only a lock (a run interrupted before its first file) is taken over when stale, refused while live", () => {
    const d = dir();
    writeFileSync(lockFile(d), owner(4242));
    const notes: string[] = [];
    claimOutDir(d, { now, force: false, probe: probeOf({ 4242: { state: "gone" } }), notify: (l) => notes.push(l) })();
    expect(notes.join("\n")).toMatch(/taking over a stale lock: .*is gone/);
    expect(readdirSync(d)).toEqual([]);
    writeFileSync(lockFile(d), owner(4242));
    expect(() => claimOutDir(d, { now, force: false, probe: probeOf({ 4242: { state: "alive", start: null } }) })).toThrow(/in use by pid 4242/);
  });

  it("what a rebuildable writer (a merge) left when it died before its manifest is removed once its lock is stale; anything else still needs --force", () => {
    const remains = (lock: string, extra: string[] = []) => {
      const d = dir();
      for (const f of [RUN_FILES.trials, RUN_FILES.spend, `${RUN_FILES.trials}.tmp-9`, ...extra]) writeFileSync(join(d, f), "x\n");
      writeFileSync(lockFile(d), lock);
      return d;
    };
    const gone = probeOf({ 4242: { state: "gone" } });
    const merge = owner(4242, hostname(), { rebuildable: true });
    const notes: string[] = [];
    const d = remains(merge);
    claimOutDir(d, { now, force: false, probe: gone, notify: (l) => notes.push(l) })();
    expect(readdirSync(d)).toEqual([]);
    expect(notes.join("\n")).toMatch(/removing what an unfinished write left \(no manifest\.json; its inputs rebuild it\): .*trials\.jsonl/);
    // a merge still running is refused, its files untouched
    const live = remains(merge);
    expect(() => claimOutDir(live, { now, force: false, probe: probeOf({ 4242: { state: "alive", start: null } }) })).toThrow(/in use by pid 4242/);
    expect(readdirSync(live)).toContain(RUN_FILES.trials);
    // a run's records are never rebuilt from anything: its stale lock does not make them removable
    for (const kept of [remains(owner(4242)), remains(merge, [RUN_FILES.manifest]), remains(merge, ["notes.txt"])]) {
      expect(() => claimOutDir(kept, { now, force: false, probe: gone })).toThrow(/not empty/);
      expect(readdirSync(kept)).toContain(RUN_FILES.trials);
    }
  });

  it("a full disk at the lock is the storage's failure (exit 3), not bad input (exit 2), and leaves no empty lock behind", () => {
    const d = dir();
    const real = fs.writeSync;
    // The lock's text is the only write of the call: the disk is full when it comes.
    fs.writeSync = ((fd: number, data: unknown, ...rest: unknown[]) => {
      if (Buffer.isBuffer(data) && data.toString("utf8").startsWith('{"pid"'))
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      return (real as (...a: unknown[]) => number)(fd, data, ...rest);
    }) as typeof fs.writeSync;
    syncBuiltinESMExports();
    try {
      const e = (() => {
        try {
          acquireLock(d, { now });
        } catch (error) {
          return error;
        }
      })();
      expect(e).not.toBeInstanceOf(InputError);
      expect((e as NodeJS.ErrnoException).code).toBe("ENOSPC");
      // An empty lock would read as one being taken right now, and refuse the resume for seconds.
      expect(existsSync(join(d, RUN_FILES.lock))).toBe(false);
    } finally {
      fs.writeSync = real;
      syncBuiltinESMExports();
    }
  });

  it("--out that is a file, or under one, is one line of bad input", () => {
    const d = dir();
    writeFileSync(join(d, "f"), "");
    expect(() => claimOutDir(join(d, "f"), { now, force: false })).toThrow(/f: --out: is a file, not a folder/);
    expect(() => claimOutDir(join(d, "f", "sub"), { now, force: true })).toThrow(/--out: cannot create the folder \(ENOTDIR\)/);
  });

  it("--force takes the lock before deleting: a folder a live run holds is refused and left untouched", () => {
    const d = dir();
    writeFileSync(join(d, RUN_FILES.trials), "precious\n");
    writeFileSync(lockFile(d), owner(4242));
    expect(() => claimOutDir(d, { now, force: true, probe: probeOf({ 4242: { state: "alive", start: null } }) })).toThrow(/in use by pid 4242/);
    expect(readFileSync(join(d, RUN_FILES.trials), "utf8")).toBe("precious\n");
    expect(readFileSync(lockFile(d), "utf8")).toBe(owner(4242));
  });

  it("keeps a second writer out; takes over from an owner that is gone, a zombie, or whose pid was reused", () => {
    const d = dir();
    const release = acquireLock(d, { now });
    expect(() => acquireLock(d, { now })).toThrow(/in use by pid \d+ on /);
    release();
    expect(existsSync(lockFile(d))).toBe(false);
    for (const [state, why] of [
      [{ state: "gone" }, /is gone/],
      [{ state: "zombie" }, /zombie/],
      [{ state: "alive", start: "999" }, /pid now belongs to another process/],
    ] as const) {
      writeFileSync(lockFile(d), owner(77, hostname(), { proc_start: "123" }));
      const notes: string[] = [];
      acquireLock(d, { now, probe: probeOf({ 77: state }), notify: (l) => notes.push(l) })();
      expect(notes.join("\n")).toMatch(why);
    }
    writeFileSync(lockFile(d), owner(77, hostname(), { proc_start: "123" }));
    expect(() => acquireLock(d, { now, probe: probeOf({ 77: { state: "alive", start: "123" } }), breakLock: true })).toThrow(/in use by pid 77/);
  });

  it("an empty lock file is live for a few seconds, stale after", () => {
    const d = dir();
    writeFileSync(lockFile(d), "");
    expect(() => acquireLock(d, { now })).toThrow(/empty and 0 s old: another fieldtest is taking it/);
    const old = (Date.now() - EMPTY_LOCK_GRACE_MS - 1000) / 1000;
    utimesSync(lockFile(d), old, old);
    const notes: string[] = [];
    acquireLock(d, { now, notify: (l) => notes.push(l) })();
    expect(notes).toEqual([expect.stringContaining("an empty lock file left by a crash")]);
  });

  it("a lock from another host is refused unless --break-lock, which names its host and pid", () => {
    const d = dir();
    writeFileSync(lockFile(d), owner(31337, "ci-runner-7"));
    expect(() => acquireLock(d, { now })).toThrow(/locked by pid 31337 on host ci-runner-7 .*--break-lock/);
    const notes: string[] = [];
    const release = acquireLock(d, { now, breakLock: true, notify: (l) => notes.push(l) });
    expect(notes).toEqual([expect.stringMatching(/--break-lock: breaking the lock of pid 31337 on host ci-runner-7/)]);
    expect(JSON.parse(readFileSync(lockFile(d), "utf8")).pid).toBe(process.pid);
    release();
  });

  it("release leaves a lock that is no longer its own", () => {
    const d = dir();
    const release = acquireLock(d, { now });
    writeFileSync(lockFile(d), owner(31337, "elsewhere"));
    release();
    expect(readFileSync(lockFile(d), "utf8")).toBe(owner(31337, "elsewhere"));
  });
});

describe("atomic files (the manifest, the summary, the reports)", () => {
  const folder = dir();
  const file = join(folder, "manifest.json");
  const text = JSON.stringify({ state: "completed", pad: "x".repeat(10_000) });
  /** A write that takes at most `chunk` bytes at a time, then fails with ENOSPC once `room` bytes are down. */
  const disk = (chunk: number, room = Infinity) => {
    let written = 0;
    return ((fd: number, buffer: Buffer, offset: number, length: number) => {
      if (written >= room) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      const n = Math.min(chunk, length, room - written);
      written += n;
      return writeSync(fd, buffer, offset, n);
    }) as typeof writeSync;
  };

  it("writes every byte when the disk takes them a few at a time", () => {
    writeFileAtomic(file, text, disk(1000));
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it("a folder where the file goes is bad input naming it, with no temporary file left", () => {
    const d = dir();
    mkdirSync(join(d, "summary.json"));
    expect(() => writeFileAtomic(join(d, "summary.json"), "{}")).toThrow(/summary\.json: is a folder, not a file$/);
    expect(readdirSync(d)).toEqual(["summary.json"]);
  });

  it("keeps the old file whole, and leaves no temporary file, when the disk fills up part-way", () => {
    writeFileAtomic(file, "old");
    expect(() => writeFileAtomic(file, text, disk(1000, 4096))).toThrow(/ENOSPC/);
    expect(readFileSync(file, "utf8")).toBe("old");
    expect(readdirSync(folder)).toEqual(["manifest.json"]);
  });
});

describe("writers in a run folder never write through a link", () => {
  const victimIn = (d: string) => {
    const victim = join(d, "..", `${d.split("/").pop()}-victim.txt`);
    writeFileSync(victim, "outside\n");
    return victim;
  };

  it("the trial log and the spend journal refuse a link in their place; an atomic write refuses a link and never opens one planted at its temporary name", () => {
    const d = dir();
    const victim = victimIn(d);
    symlinkSync(victim, join(d, RUN_FILES.trials));
    expect(() => new TrialLog(d)).toThrow(
      `${join(d, RUN_FILES.trials)}: is a symbolic link, which fieldtest does not follow here: put the file itself in its place`,
    );
    symlinkSync(victim, join(d, "summary.json"));
    expect(() => writeFileAtomic(join(d, "summary.json"), "{}")).toThrow(/summary\.json: is a symbolic link/);
    // A link at the temporary name (a leftover, or planted) is removed, not written through.
    symlinkSync(victim, join(d, `manifest.json.tmp-${process.pid}`));
    writeFileAtomic(join(d, "manifest.json"), "{}\n");
    expect(readFileSync(join(d, "manifest.json"), "utf8")).toBe("{}\n");
    expect(readFileSync(victim, "utf8")).toBe("outside\n");
  });

  it("the lock refuses a link in its place rather than reading or replacing it", () => {
    const d = dir();
    const victim = victimIn(d);
    symlinkSync(victim, join(d, RUN_FILES.lock));
    expect(() => acquireLock(d, { now: () => new Date() })).toThrow(/run\.lock: is a symbolic link/);
    expect(readFileSync(victim, "utf8")).toBe("outside\n");
  });
});

describe("bounded reads of a log", () => {
  afterEach(() => {
    setReadLimits(DEFAULT_READ_LIMITS);
  });

  it("a line past FIELDTEST_MAX_LINE_MB, or a log past FIELDTEST_MAX_LOG_MB, is bad input naming the limit and how to raise it", () => {
    const d = dir();
    const line = JSON.stringify(rec("a", 0));
    writeFileSync(join(d, RUN_FILES.trials), `${line}\n${JSON.stringify({ ...rec("b", 0, "error"), error: "x".repeat(3000) })}\n`);
    setReadLimits({ ...DEFAULT_READ_LIMITS, lineBytes: 2048 });
    expect(() => readTrials(d)).toThrow(
      `${join(d, RUN_FILES.trials)}:2: larger than the 0.00195313 MiB one line of a log may be (set FIELDTEST_MAX_LINE_MB, in MiB, to raise it)`,
    );
    setReadLimits({ ...DEFAULT_READ_LIMITS, logBytes: 4096 });
    expect(() => readTrials(d)).toThrow(
      `${join(d, RUN_FILES.trials)}: larger than the 0.00390625 MiB a log may be (set FIELDTEST_MAX_LOG_MB, in MiB, to raise it)`,
    );
    setReadLimits(DEFAULT_READ_LIMITS);
    expect(readTrials(d)).toHaveLength(2);
  });

  it("a record that is not UTF-8 is bad input naming its line and byte offset; a torn tail cut inside a character is still a torn tail", () => {
    const d = dir();
    const line = JSON.stringify(rec("a", 0));
    const at = line.indexOf('"item_id":"a"') + '"item_id":"'.length;
    const bad = Buffer.from(line);
    bad[at] = 0xff;
    writeFileSync(join(d, RUN_FILES.trials), Buffer.concat([Buffer.from(`${line}\n`), bad, Buffer.from("\n")]));
    expect(() => readTrials(d)).toThrow(`${join(d, RUN_FILES.trials)}:2: not valid UTF-8 (byte offset ${line.length + 1 + at})`);
    writeFileSync(join(d, RUN_FILES.trials), Buffer.concat([Buffer.from(`${line}\n{"schema_version":1,"item_id":"`), Buffer.from("é").subarray(0, 1)]));
    expect(readTrialLog(d)).toMatchObject({ torn: 1, lines: 1 });
  });
});
