import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSpend } from "../../harness/run/journal.ts";
import { readTrialLog, RUN_FILES } from "../../harness/run/store.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import { trialKey, type TrialRecord } from "../../src/formats/records.ts";
import { chatCompletion, errorBody, startFakeServer, type FakeServer, type Step } from "../providers/fake-server.ts";
import { cli, smallCorpus, sweepProcess, tempDir, testHost } from "./helpers.ts";

/**
 * A `--resume --retry-errors` session killed part-way (inspect #5213's case): the next
 * `--retry-errors` resume re-runs only the trials whose last record is still an error or that
 * never got one, never one that the killed session already recorded as done, and no trial ends
 * with two records that are not errors.
 */

const root = tempDir("ft-crash-retry-");
const corpusRoot = smallCorpus(root, 0, 4);
/** Four boundary fixtures × 3 trials, one critic call each. */
const SWEEP = { suite: "boundary", trials: "3", concurrency: "2", provider: "openai", model: "gpt-4o-mini" };
const TRIALS = 12;

const servers: FakeServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const down: Step = { status: 503, body: errorBody("no healthy upstream"), headers: { "retry-after-ms": "0" } };
const healthy: Step = { status: 200, body: chatCompletion(JSON.stringify({ findings: [] })), delayMs: 30 };

/** Every line of the trial log, in the order written. */
const lines = (dir: string) =>
  readFileSync(join(dir, RUN_FILES.trials), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TrialRecord);

describe("a --retry-errors session killed part-way", () => {
  for (const killAt of [2, 8]) {
    it(`killed as its request ${killAt} arrives: the next --retry-errors resume buys only what is still an error or missing`, async () => {
      let phase: "outage" | "retry" = "outage";
      let retried = 0;
      let pid = 0;
      const server = await startFakeServer(() => {
        if (phase === "outage") return down;
        if (++retried === killAt) process.kill(pid, "SIGKILL");
        return healthy;
      });
      servers.push(server);
      const out = join(root, `kill-${killAt}`);

      // 1. The provider is down: every trial is recorded as an error (exit 3).
      expect(await runSweep(cli({ ...SWEEP, baseUrl: `${server.url}/v1`, out }), { maxRetries: 0 }, realEngine({}, corpusRoot), testHost())).toBe(3);
      expect(lines(out).map((r) => r.status)).toEqual(Array<string>(TRIALS).fill("error"));

      // 2. It is back; the retry session, in a process of its own, is killed part-way.
      phase = "retry";
      const child = sweepProcess({ resume: out, retryErrors: true }, corpusRoot);
      pid = child.pid!;
      expect((await child).signal, "the retry session was killed").toBe("SIGKILL");
      const afterKill = new Map(readTrialLog(out).records.map((r) => [trialKey(r), r.status]));
      const stillOwed = new Set([...afterKill].filter(([, status]) => status === "error").map(([key]) => key));
      expect(stillOwed.size, "the kill left some trials to retry").toBeGreaterThan(0);

      // 3. The next --retry-errors resume finishes the job.
      const sessions = readSpend(out).tally.sessionIds().length;
      expect(await runSweep(cli({ resume: out, retryErrors: true }), {}, realEngine({}, corpusRoot), testHost())).toBe(0);
      const bought = new Set<string>();
      let session = 0;
      let current = "";
      readSpend(out, (line) => {
        if (line.session !== current) [current, session] = [line.session, session + 1];
        if (session > sessions && line.event === "sent") bought.add(line.trial_key!);
      });
      expect([...bought].sort(), "the last session sent only for the trials still owed").toEqual([...stillOwed].sort());

      // Every trial ends done, with at most one record that is not an error, and it is the last.
      const byKey = new Map<string, string[]>();
      for (const r of lines(out)) byKey.set(trialKey(r), [...(byKey.get(trialKey(r)) ?? []), r.status]);
      expect(byKey.size).toBe(TRIALS);
      for (const [key, statuses] of byKey) {
        expect(
          statuses.filter((s) => s !== "error"),
          key,
        ).toHaveLength(1);
        expect(statuses.at(-1), key).not.toBe("error");
      }
    }, 60_000);
  }
});
