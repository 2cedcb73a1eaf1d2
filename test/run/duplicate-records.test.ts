import { appendFileSync, cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readTrialLog, RUN_FILES } from "../../harness/run/store.ts";
import { writeRunDir } from "../baseline/builders.ts";
import { runFieldtest } from "../helpers/cli.ts";
import { handBuiltRuns, runReaders, TWO_ITEMS, type HandBuiltRuns } from "../helpers/hand-built-runs.ts";

let h: HandBuiltRuns;
beforeAll(async () => {
  h = await handBuiltRuns("ft-duplicates-");
});

/** A copy of the run whose trials.jsonl gets its line `n` again, changed by `edit`. */
function runWithRepeat(name: string, n: number, edit: (line: string) => string): string {
  const dir = join(h.root, name);
  cpSync(h.run, dir, { recursive: true });
  const lines = readFileSync(join(dir, RUN_FILES.trials), "utf8").split("\n");
  appendFileSync(join(dir, RUN_FILES.trials), `${edit(lines[n - 1]!)}\n`);
  return dir;
}

describe("two records for one trial key", () => {
  it("different: every reader (and merge) refuses the run, naming the key and both lines (exit 2)", async () => {
    const dir = runWithRepeat("conflict", 2, (line) => line.replace('"latency_ms":110', '"latency_ms":111'));
    for (const args of runReaders(h, dir, join(h.root, "out-conflict"))) {
      const r = await runFieldtest(args);
      expect([r.code, r.stderr], args[0]).toEqual([
        2,
        `fieldtest: ${join(dir, RUN_FILES.trials)}:7: trial boundary/seeded-0/1 has two different records, lines 2 and 7: only an error record may be followed by another record of its key (a --retry-errors re-run)\n`,
      ]);
    }
  });

  it("identical: every reader reads it once and warns on stderr; merge writes it once", async () => {
    const dir = runWithRepeat("identical", 2, (line) => line);
    // report names the one run it reads; the others name the run each warning is about.
    const warning = "1 trial(s) of trials.jsonl are written twice with the same record, read once (boundary/seeded-0/1: lines 2 and 7)\n";
    const out = join(h.root, "out-identical");
    for (const args of runReaders(h, dir, out)) {
      const r = await runFieldtest(args);
      expect(r.code, `${args[0]}: ${r.stderr}`).not.toBe(2);
      expect(r.stderr, args[0]).toContain(`fieldtest: warning: ${args[0] === "report" ? "" : `${dir}: `}${warning}`);
    }
    expect(readTrialLog(join(out, "merged")).lines).toBe(6);
  });
});

describe("report", () => {
  it("warns on stderr, as the other readers do, of a missing trials.jsonl, a torn last line and a run still being written", async () => {
    const torn = join(h.root, "torn");
    cpSync(h.run, torn, { recursive: true });
    appendFileSync(join(torn, RUN_FILES.trials), '{"schema_version":1,"suite":"boundary","item_id":"cl');
    const tornReport = await runFieldtest(["report", torn, "--corpus", h.corpus]);
    expect(tornReport.code).toBe(0);
    expect(tornReport.stderr).toContain(`fieldtest: warning: 1 line(s) of trials.jsonl are not complete JSON (torn writes) and were skipped\n`);

    const missing = join(h.root, "missing");
    writeRunDir(missing, TWO_ITEMS, h.hashes, (m) => void ((m.plan.planned = 6), (m.plan.shard_planned = 6)));
    rmSync(join(missing, RUN_FILES.trials));
    const none = await runFieldtest(["report", missing, "--corpus", h.corpus]);
    expect(none.stderr).toContain(`fieldtest: warning: trials.jsonl is missing: the run has no trial record to read\n`);

    const live = join(h.root, "live");
    cpSync(h.run, live, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(live, RUN_FILES.manifest), "utf8"));
    writeFileSync(join(live, RUN_FILES.manifest), JSON.stringify({ ...manifest, state: "running", finished_at: null }));
    // This process holds the lock: a live run.
    writeFileSync(join(live, RUN_FILES.lock), JSON.stringify({ pid: process.pid, host: hostname(), started_at: new Date().toISOString() }));
    const liveReport = await runFieldtest(["report", live, "--corpus", h.corpus]);
    expect(liveReport.stderr).toContain(`fieldtest: warning: the run is still running, not completed: its numbers describe only the trials it recorded\n`);
  });
});
