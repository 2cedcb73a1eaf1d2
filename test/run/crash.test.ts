import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import pLimit from "p-limit";
import { describe, expect, it } from "vitest";
import { loadRun, runWarnings } from "../../harness/run/load.ts";
import { readManifest } from "../../harness/run/manifest.ts";
import { readTrialLog } from "../../harness/run/store.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { trialKey, type TrialRecord } from "../../src/formats/records.ts";
import { compiled } from "../helpers/compiled.ts";
import { CHILD_NODE_FLAGS } from "../helpers/node-flags.ts";
import { instrumentedEngine } from "./fixtures/instrumented.ts";
import { cli, smallCorpus, tempDir, testHost } from "./helpers.ts";

const CHILD = compiled(join(import.meta.dirname, "fixtures", "crash-child.ts"));
const TRIALS = "3";
const KILL_POINTS = 10;

const verdicts = (records: TrialRecord[]) => records.map((r) => [trialKey(r), r.status, r.verdict, r.critic_verdict, r.calls.length].join(" "));
const callLog = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);

describe("crash safety", () => {
  it(`SIGKILL at ${KILL_POINTS} points, then --resume: same keys, none twice, calls = uninterrupted + in-flight, each session's trials counted`, async () => {
    const root = tempDir("ft-crash-");
    const corpusRoot = smallCorpus(root, 4, 2);

    // the uninterrupted run
    const baseDir = join(root, "baseline");
    const baseCalls: string[] = [];
    expect(
      await runSweep(
        cli({ trials: TRIALS, concurrency: "4", out: baseDir }),
        {},
        instrumentedEngine(corpusRoot, (k) => baseCalls.push(k)),
        testHost(),
      ),
    ).toBe(0);
    const baseline = readTrialLog(baseDir).records;
    const total = baseCalls.length;
    expect(total).toBeGreaterThan(KILL_POINTS);

    // kill points spread over the whole run, first call to last
    const points = Array.from({ length: KILL_POINTS }, (_, i) => 1 + Math.floor((i * (total - 1)) / (KILL_POINTS - 1)));
    const limit = pLimit(3);
    await Promise.all(
      points.map((k) =>
        limit(async () => {
          const out = join(root, `kill-${k}`);
          const log = join(root, `calls-${k}.log`);
          const child = await execa(process.execPath, [...CHILD_NODE_FLAGS, CHILD], {
            env: { FT_OUT: out, FT_CORPUS: corpusRoot, FT_TRIALS: TRIALS, FT_CALL_LOG: log, FT_KILL_AT: String(k), CI: "1" },
            reject: false,
          });
          expect(child.signal, `kill point ${k}: ${child.stderr}`).toBe("SIGKILL");

          const beforeKill = callLog(log);
          expect(beforeKill).toHaveLength(k);
          const recorded = new Set(readTrialLog(out).records.map(trialKey));
          // Killed: the run still says running, but its report says it stopped, and that its canaries passed.
          const stopped = loadRun(out, corpusRoot);
          expect(stopped.manifest).toMatchObject({ state: "running", canary: { ok: true } });
          expect(stopped.warnings, `kill point ${k}`).toContainEqual(
            expect.stringMatching(
              /^the run is stopped \(it crashed or was killed\), not completed: its numbers describe only the trials it recorded; `npx --no-install fieldtest run --resume .*` completes it$/,
            ),
          );
          expect(runWarnings(stopped), `kill point ${k}`).toContain(
            `${out}: the run is stopped (it crashed or was killed), not completed: its numbers describe only the trials it recorded; \`npx --no-install fieldtest run --resume ${out}\` completes it`,
          );
          const inFlightCalls = beforeKill.filter((key) => !recorded.has(key)).length;

          const resumeCalls: string[] = [];
          expect(
            await runSweep(
              cli({ resume: out }),
              {},
              instrumentedEngine(corpusRoot, (key) => resumeCalls.push(key)),
              testHost(),
            ),
          ).toBe(0);
          const final = readTrialLog(out);
          expect(final.repeated, `kill point ${k}`).toEqual([]);
          expect(verdicts(final.records), `kill point ${k}`).toEqual(verdicts(baseline));
          // no finished trial was bought twice; only the ones in flight at the kill are re-run
          expect(resumeCalls.filter((key) => recorded.has(key))).toEqual([]);
          expect(beforeKill.length + resumeCalls.length, `kill point ${k}`).toBe(total + inFlightCalls);
          // The killed session never said what it wrote: the resume counts it from the log.
          const [killed, resumed] = readManifest(out).sessions;
          expect(killed, `kill point ${k}`).toMatchObject({ outcome: "crashed", trials_written: recorded.size });
          expect(resumed!.trials_written, `kill point ${k}`).toBe(final.records.length - recorded.size);
        }),
      ),
    );
  }, 180_000);
});
