import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pLimit from "p-limit";
import { afterAll, describe, expect, it } from "vitest";
import { readSpend } from "../../harness/run/journal.ts";
import { readManifest } from "../../harness/run/manifest.ts";
import { readTrialLog, RUN_FILES } from "../../harness/run/store.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import type { ConfigFile } from "../../harness/config.ts";
import type { FakeServer } from "../providers/fake-server.ts";
import { PRICE_PER_CALL, startCountingServer, type CountingOptions } from "../providers/counting-server.ts";
import { cli, smallCorpus, sweepProcess, tempDir, testHost } from "./helpers.ts";

const KILL_POINTS = 10;
const CONCURRENCY = 4;
const root = tempDir("ft-crash-budget-");
const corpusRoot = smallCorpus(root, 0, 4);
/** 4 fixtures × 4 trials, every third answer not JSON (one more call): about 24 calls uncapped. */
const SWEEP = { suite: "boundary", trials: "4", concurrency: String(CONCURRENCY), provider: "openai", model: "gpt-4o-mini" };
/** Small per-call assumptions, so the start-of-run estimate fits the ceilings and the ceiling binds mid-run. */
const FILE: ConfigFile = { estimate: { roundsPerGoal: 1, planner: { inputTokens: 10, outputTokens: 10 }, critic: { inputTokens: 10, outputTokens: 10 } } };
const CONFIG = join(root, "fieldtest.config.json");
writeFileSync(CONFIG, JSON.stringify(FILE));

const servers: FakeServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

interface Killed {
  out: string;
  server: FakeServer;
  /** Sends of the killed process whose answer it never got to record: the calls in flight at the kill. */
  inFlight: number;
  /** Requests the resumes made. */
  resumed: number;
  /** Whether a priced answer came back before the kill: the resumes then know what a send costs. */
  pricedBeforeKill: boolean;
}

/**
 * Runs the sweep in a process of its own (the binary) against a counting server that SIGKILLs the child as its
 * k-th request arrives (before answering it), then resumes the run twice in this process.
 */
async function killAndResume(k: number, limit: Record<string, string>, server: Partial<CountingOptions> = {}): Promise<Killed & { codes: number[] }> {
  const out = join(root, `${Object.keys(limit)[0]}-kill-${k}`);
  let pid = 0;
  const srv = await startCountingServer({
    invalidEvery: 3,
    delayMs: 40,
    ...server,
    onRequest: (n) => {
      if (n === k) process.kill(pid, "SIGKILL");
    },
  });
  servers.push(srv);
  const running = sweepProcess({ ...SWEEP, ...limit, baseUrl: `${srv.url}/v1`, out, config: CONFIG }, corpusRoot);
  pid = running.pid!;
  const child = await running;
  expect(child.signal, `kill point ${k}: ${child.stderr}`).toBe("SIGKILL");
  // Requests already on the wire still arrive after the kill: all of them are the killed process's.
  const killed = srv.received.length;
  const journal = readSpend(out).tally;
  const [session] = journal.sessionIds();
  const spentByKilled = journal.session(session!);
  expect(spentByKilled.calls, `kill point ${k}: every request that reached the server was journaled before it left`).toBeGreaterThanOrEqual(killed);
  // In flight at the kill: sent, and never answered back into the process (the server may have answered it a moment too late).
  const inFlight = spentByKilled.unknown_cost_calls;
  const pricedBeforeKill = Object.keys(journal.dearest).length > 0;
  const codes: number[] = [];
  for (let i = 0; i < 2; i++) codes.push(await runSweep(cli({ resume: out }), FILE, realEngine({}, corpusRoot), testHost()));
  return { out, server: srv, inFlight, pricedBeforeKill, resumed: srv.received.length - killed, codes };
}

/** Kill points spread over the first `ceiling` requests. */
const points = (ceiling: number) => Array.from({ length: KILL_POINTS }, (_, i) => 1 + Math.floor((i * (ceiling - 1)) / (KILL_POINTS - 1)));

describe("a budget survives SIGKILL: the spend journal counts every session", () => {
  it(`--max-calls: killed at ${KILL_POINTS} points, kill and resumes together never send more than the ceiling`, async () => {
    // The estimate is 16 calls (one per trial), the sweep makes about 26 uncapped: a resume is
    // refused when spent plus its estimate passes the ceiling, else it runs until the ceiling.
    const ceiling = 20;
    const limit = pLimit(2);
    const results = await Promise.all(points(ceiling).map((k) => limit(() => killAndResume(k, { maxCalls: String(ceiling) }, { errorEvery: 7 }))));
    for (const [i, r] of results.entries()) {
      const k = points(ceiling)[i]!;
      const received = r.server.received.length;
      expect(r.inFlight, `kill point ${k}`).toBeGreaterThanOrEqual(1);
      // The acceptance bound, and the tighter one the journal gives: a send is journaled before it leaves.
      expect(received, `kill point ${k}`).toBeLessThanOrEqual(ceiling + r.inFlight);
      expect(received, `kill point ${k}`).toBeLessThanOrEqual(ceiling);
      const m = readManifest(r.out);
      expect(m.spend!.calls, `kill point ${k}: the journal forgets no request`).toBeGreaterThanOrEqual(received);
      expect(m.sessions[0]!.outcome).toBe("crashed");
      expect(m.sessions[0]!.spend!.calls).toBeGreaterThanOrEqual(k);
      expect(readTrialLog(r.out).repeated).toEqual([]);
      expect(r.codes.every((c) => c === 0 || c === 3)).toBe(true);
      // However the last resume ended (done, stopped, or refused at start), no session is left running and the totals are the log's.
      expect(m.state, `kill point ${k}`).not.toBe("running");
      expect(m.totals.recorded, `kill point ${k}`).toBe(readTrialLog(r.out).records.length);
    }
    // Some resumes ran after the crash and were stopped by the ceiling the journal carried over.
    expect(results.some((r) => r.resumed > 0 && readManifest(r.out).sessions.some((s) => s.outcome === "budget_stopped" && s.spend!.calls > 0))).toBe(true);
  }, 240_000);

  it(`--budget-usd with priced usage: killed at ${KILL_POINTS} points, kill and resumes together never buy more than the budget, the calls in flight at the kill included`, async () => {
    // 12.5 calls' worth: 12 calls fit. A send is admitted only while the spend plus every send in
    // flight, each at the dearest send so far, leaves room for it; the calls in flight at the kill
    // have unknown cost, and each resume holds them at the dearest send.
    const budget = 12.5 * PRICE_PER_CALL;
    const fits = Math.floor(budget / PRICE_PER_CALL);
    const limit = pLimit(2);
    const results = await Promise.all(points(fits).map((k) => limit(() => killAndResume(k, { budgetUsd: String(budget) }))));
    for (const [i, r] of results.entries()) {
      const k = points(fits)[i]!;
      const received = r.server.received.length;
      // Every request the server received is one it billed, those in flight at the kill included. The
      // resumes hold those at the dearest send returned before the kill, so kill and resumes together
      // buy no more than fits; with none returned, only at the estimate's (deliberately low) price.
      expect(received, `kill point ${k}`).toBeLessThanOrEqual(r.pricedBeforeKill ? fits : fits + r.inFlight);
      const m = readManifest(r.out);
      expect(m.spend!.calls).toBeGreaterThanOrEqual(received);
      expect(m.spend!.cost_usd, `kill point ${k}`).toBeLessThanOrEqual(budget);
      // sends that never came back were in flight at the kill: their cost is unknown, the total a lower bound
      expect(m.spend!.cost_usd_is_lower_bound).toBe(m.spend!.unknown_cost_calls > 0);
      expect(m.spend!.unknown_cost_calls).toBe(r.inFlight);
      expect(readTrialLog(r.out).repeated).toEqual([]);
    }
    expect(results.some((r) => r.resumed > 0)).toBe(true);
    expect(
      results.some((r) => r.pricedBeforeKill && r.inFlight > 0),
      "some kill left priced sends in flight",
    ).toBe(true);
  }, 240_000);
});

describe("unknown cost fails a USD budget closed", () => {
  it("stops at the first call whose usage never came, exit 3, says why; every resume goes on, and the cost is a lower bound", async () => {
    const server = await startCountingServer({ usage: false, delayMs: 20 });
    servers.push(server);
    const out = join(root, "no-usage");
    const run = (raw: Record<string, unknown>) => {
      const host = testHost();
      return runSweep(cli(raw), FILE, realEngine({}, corpusRoot), host).then((code) => ({ code, host }));
    };
    const first = await run({ ...SWEEP, trials: "2", concurrency: "2", budgetUsd: "1", baseUrl: `${server.url}/v1`, out });
    expect(first.code).toBe(3);
    expect(first.host.stderr.text).toMatch(/budget reached \(--budget-usd 1: a critic call's cost is unknown \(the provider reported no usage\)/);
    expect(first.host.stderr.text).toContain(
      `Resume with (it stops again at its next call of unknown cost):\n  npx --no-install fieldtest run --resume ${out}\n`,
    );
    // No send left after the first return of unknown cost (the other trial's was already out).
    const lines: string[] = [];
    readSpend(out, (l) => lines.push(l.event === "sent" ? "sent" : l.cost_usd === null ? "unknown" : "known"));
    expect(lines.slice(lines.indexOf("unknown")).includes("sent")).toBe(false);
    expect(server.received.length).toBeLessThanOrEqual(2);
    expect(readManifest(out).state).toBe("budget_stopped");

    let resumes = 0;
    let last = first;
    while (last.code === 3 && resumes < 10) {
      const before = readTrialLog(out).records.length;
      last = await run({ resume: out });
      resumes++;
      expect(readTrialLog(out).records.length, "each resume records at least one more trial").toBeGreaterThan(before);
    }
    expect(last.code).toBe(0);
    const m = readManifest(out);
    expect(m.state).toBe("completed");
    expect(m.spend!).toMatchObject({ calls: server.received.length, cost_usd: 0, unknown_cost_calls: server.received.length, cost_usd_is_lower_bound: true });
    expect(m.sessions.length).toBe(resumes + 1);
    const summary = JSON.parse(readFileSync(join(out, RUN_FILES.summary), "utf8"));
    expect(summary.spend.cost_usd_is_lower_bound).toBe(true);
    const report = readFileSync(join(out, RUN_FILES.reportMd), "utf8");
    expect(report).toContain("The cost is a lower bound");
    expect(readFileSync(join(out, RUN_FILES.reportHtml), "utf8")).toContain("The cost is a lower bound");
    // spend per session: one row each, from the journal
    for (const s of m.sessions) expect(report).toMatch(new RegExp(`\\| ${s.id} \\| ${s.started_at} \\| ${s.outcome} \\| ${s.spend!.calls} \\|`));
    expect(summary.spend.sessions.map((s: { id: string }) => s.id)).toEqual(m.sessions.map((s) => s.id));
    expect(last.host.stdout.text).toMatch(/spent \d+ calls, at least \$0\.0000 \(\d+ call\(s\) of unknown cost\)/);
  }, 60_000);
});
