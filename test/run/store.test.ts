import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireLock, prepareOutDir, readTrialLog, readTrials, RUN_FILES, TrialLog } from "../../harness/run/store.ts";
import type { TrialRecord } from "../../src/formats/records.ts";

const dir = () => mkdtempSync(join(tmpdir(), "ft-store-"));
const rec = (item_id: string, trial: number, status: TrialRecord["status"] = "approved") =>
  ({ schema_version: 1, suite: "corpus", item_id, trial, status, calls: [] }) as unknown as TrialRecord;

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
    expect(read.records.map((r) => [r.item_id, r.status])).toEqual([["a", "escalated"], ["b", "approved"]]);
  });

  it("a log reopened after a torn write starts the next record on its own line", () => {
    const d = dir();
    writeFileSync(join(d, RUN_FILES.trials), `${JSON.stringify(rec("a", 0))}\n{"schema_version":1,"su`);
    const log = new TrialLog(d);
    log.append(rec("b", 1));
    log.close();
    expect(readTrials(d).map((r) => r.item_id)).toEqual(["a", "b"]);
    expect(readTrialLog(d).torn).toBe(1);
  });

  it("a missing log reads as empty; a foreign line is an input error", () => {
    const d = dir();
    expect(readTrials(d)).toEqual([]);
    writeFileSync(join(d, RUN_FILES.trials), '{"hello": 1}\n');
    expect(() => readTrials(d)).toThrow(/line 1.*not a trial record/);
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
    appendFileSync(join(d, RUN_FILES.trials), '\n{"hello": 1}\n');
    const lines = readFileSync(join(d, RUN_FILES.trials), "utf8").split("\n");
    expect(() => readTrials(d)).toThrow(new RegExp(`line ${lines.indexOf('{"hello": 1}') + 1}: schema_version`));
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

describe("run folder", () => {
  it("--out refuses a non-empty folder unless forced, and force removes only run files", () => {
    const d = dir();
    writeFileSync(join(d, RUN_FILES.trials), "x\n");
    writeFileSync(join(d, "notes.txt"), "mine");
    expect(() => prepareOutDir(d, false)).toThrow(/not empty/);
    prepareOutDir(d, true);
    expect(existsSync(join(d, RUN_FILES.trials))).toBe(false);
    expect(readFileSync(join(d, "notes.txt"), "utf8")).toBe("mine");
    prepareOutDir(join(d, "new", "deep"), false);
    expect(existsSync(join(d, "new", "deep"))).toBe(true);
  });

  it("the lock keeps a second writer out and is taken over from a dead owner", () => {
    const d = dir();
    const now = () => new Date();
    const release = acquireLock(d, now);
    expect(() => acquireLock(d, now)).toThrow(/in use by pid/);
    release();
    const again = acquireLock(d, now);
    again();
    // a lock left by a process that no longer exists
    acquireLock(d, now);
    expect(acquireLock(d, now, () => false)).toBeTypeOf("function");
  });
});
