import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCallJournal } from "../../harness/run/call-journal.ts";
import { readTrialLog } from "../../harness/run/store.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import { trialKey, type TrialRecord } from "../../src/formats/records.ts";
import { startUpstreamServer, type UpstreamServer } from "../providers/upstream-server.ts";
import { cli, smallCorpus, sweepProcess, tempDir, testHost } from "./helpers.ts";

/**
 * Call-level resume: a sweep killed mid-trial (SIGKILL, at the k-th request its server receives)
 * is resumed; the resumed trials take the answers the killed session got from the call journal and
 * send again only what was in flight, and end as an uninterrupted run of the same configuration does.
 */

const root = tempDir("ft-call-resume-");
const corpusRoot = smallCorpus(root, 3, 0);
const SWEEP = { suite: "corpus", trials: "2", concurrency: "3", provider: "openai", model: "gpt-4o-mini" };

const servers: UpstreamServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** The call journal as a reader takes it (a line the kill tore is skipped, as a resume skips it). */
const journal = readCallJournal;
const records = (dir: string) => new Map(readTrialLog(dir, (r: TrialRecord) => r).records.map((r) => [trialKey(r), r]));
/** What a trial is, as far as resuming it may change nothing: its verdict, its plans and every call's request, answer and sends. */
const trialShape = (r: TrialRecord) => ({
  status: r.status,
  rounds: r.rounds.map((x) => x.structural_hash),
  calls: r.calls.map((c) => [c.role, c.request_sha256, c.raw_text, c.transport_attempts.length]),
});

describe("a sweep killed mid-trial, resumed", () => {
  // Three trials start at once (requests 1-3, their planners, answered fast); their critics (slow)
  // arrive as requests 4-6: a kill there leaves answered planner calls and critic calls in flight.
  for (const killAt of [4, 6]) {
    it(`killed as request ${killAt} arrives: the resume sends no answered call again and ends as an uninterrupted run`, async () => {
      let pid = 0;
      const upstream = await startUpstreamServer({
        plannerMs: 10,
        criticMs: 150,
        spread: 0,
        corpusRoot,
        onRequest: (n) => void (n === killAt && process.kill(pid, "SIGKILL")),
      });
      const out = join(root, `kill-${killAt}`);
      const child = sweepProcess({ ...SWEEP, baseUrl: upstream.url, out }, corpusRoot);
      pid = child.pid!;
      expect((await child).signal, "the sweep was killed").toBe("SIGKILL");
      const before = journal(out);
      const answered = new Set(before.filter((l) => l.call.outcome === "ok").map((l) => `${l.trial_key} ${l.call.request_sha256}`));
      expect(answered.size, "the killed session answered calls before it died").toBeGreaterThan(0);
      const unfinished = new Set(before.map((l) => l.trial_key).filter((k) => !records(out).has(k)));
      expect(unfinished.size, "the kill cut a trial off mid-way").toBeGreaterThan(0);

      // The resume and the uninterrupted run are served at the same address (a request's hash covers it) with the
      // same answers (the server answers by prompt), by a server whose critics no longer wait: only the kill needed them slow.
      await upstream.close();
      const fast = await startUpstreamServer({ plannerMs: 10, criticMs: 10, spread: 0, corpusRoot, port: Number(new URL(upstream.url).port) });
      servers.push(fast);
      expect(await runSweep(cli({ resume: out }), {}, realEngine({}, corpusRoot), testHost())).toBe(0);
      const resumedLines = journal(out).slice(before.length);
      // Nothing the killed session got an answer for was asked again.
      expect(resumedLines.filter((l) => answered.has(`${l.trial_key} ${l.call.request_sha256}`))).toEqual([]);
      expect(fast.served()).toBe(resumedLines.length);

      // Each trial once, and each as an uninterrupted run of the same configuration has it.
      const whole = join(root, `whole-${killAt}`);
      expect(await runSweep(cli({ ...SWEEP, baseUrl: fast.url, out: whole }), {}, realEngine({}, corpusRoot), testHost())).toBe(0);
      const resumed = records(out);
      expect(resumed.size).toBe(6);
      for (const [key, r] of records(whole)) expect(trialShape(resumed.get(key)!), key).toEqual(trialShape(r));
      // A cut-off trial keeps its journaled calls as they were made: their sends and their time.
      for (const key of unfinished) {
        const journaled = before.filter((l) => l.trial_key === key).map((l) => l.call);
        expect(resumed.get(key)!.calls.slice(0, journaled.length)).toEqual(journaled);
      }
    }, 60_000);
  }
});
