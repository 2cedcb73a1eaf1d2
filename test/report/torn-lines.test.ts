import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadRun } from "../../harness/report/load.ts";
import { makeFixture, writeCorpus, writeRunDir } from "../baseline/builders.ts";

const root = mkdtempSync(join(tmpdir(), "fieldtest-torn-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a report on a trial log with torn lines", () => {
  it("skips them but says so in its warnings", () => {
    const corpus = join(root, "corpus");
    const hashes = writeCorpus(corpus, [makeFixture("seeded-a", true)], []);
    const dir = join(root, "run");
    writeRunDir(dir, [{ suite: "boundary", id: "seeded-a", verdicts: ["block", "pass", "block"] }], hashes);
    const log = join(dir, "trials.jsonl");
    const [first, ...rest] = readFileSync(log, "utf8").trimEnd().split("\n");
    // A crash mid-write, then a resume that went on appending: the torn line sits mid-file.
    writeFileSync(log, `${first}\n{"schema_version":1,"suite":"bound\n${rest.join("\n")}\n`);
    appendFileSync(log, '{"schema_version":1,"su');

    const run = loadRun(dir, corpus);
    expect(run.trials).toHaveLength(3);
    expect(run.warnings).toEqual([expect.stringContaining("2 line(s) of trials.jsonl are not complete JSON")]);
  });

  it("has no such warning for a clean log", () => {
    const corpus = join(root, "corpus2");
    const hashes = writeCorpus(corpus, [makeFixture("seeded-a", true)], []);
    const dir = join(root, "run2");
    writeRunDir(dir, [{ suite: "boundary", id: "seeded-a", verdicts: ["block", "pass"] }], hashes);
    expect(loadRun(dir, corpus).warnings).toEqual([]);
  });
});
