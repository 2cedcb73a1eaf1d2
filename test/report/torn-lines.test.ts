import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadRun } from "../../harness/run/load.ts";
import { makeFixture, writeCorpus, writeRunDir } from "../baseline/builders.ts";

const root = mkdtempSync(join(tmpdir(), "fieldtest-torn-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a report on a trial log with torn lines", () => {
  it("skips a torn last line but says so in its warnings", () => {
    const corpus = join(root, "corpus");
    const hashes = writeCorpus(corpus, [makeFixture("seeded-a", true)], []);
    const dir = join(root, "run");
    writeRunDir(dir, [{ suite: "boundary", id: "seeded-a", verdicts: ["block", "pass", "block"] }], hashes);
    appendFileSync(join(dir, "trials.jsonl"), '{"schema_version":1,"su');

    const run = loadRun(dir, corpus);
    expect(run.trials).toHaveLength(3);
    expect(run.warnings).toEqual(["1 line(s) of trials.jsonl are not complete JSON (torn writes) and were skipped"]);
  });

  it("refuses a torn line in the middle (a writer cuts a torn tail off, so that is corruption), naming file and line", () => {
    const corpus = join(root, "corpus-mid");
    const hashes = writeCorpus(corpus, [makeFixture("seeded-a", true)], []);
    const dir = join(root, "run-mid");
    writeRunDir(dir, [{ suite: "boundary", id: "seeded-a", verdicts: ["block", "pass", "block"] }], hashes);
    const log = join(dir, "trials.jsonl");
    const [first, ...rest] = readFileSync(log, "utf8").trimEnd().split("\n");
    writeFileSync(log, `${first}\n{"schema_version":1,"suite":"bound\n${rest.join("\n")}\n`);
    expect(() => loadRun(dir, corpus)).toThrow(new RegExp(`^${log}:2: not valid JSON`));
  });

  it("has no such warning for a clean log", () => {
    const corpus = join(root, "corpus2");
    const hashes = writeCorpus(corpus, [makeFixture("seeded-a", true)], []);
    const dir = join(root, "run2");
    writeRunDir(dir, [{ suite: "boundary", id: "seeded-a", verdicts: ["block", "pass"] }], hashes);
    expect(loadRun(dir, corpus).warnings).toEqual([]);
  });
});
