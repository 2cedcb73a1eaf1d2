// Call-level resume under kills (issue 32). Prints numbers; asserts nothing about time.
//
//   node dist/scripts/bench-resume.js [KILLS]     (default 20)
//
// A live-shaped sweep (the db, dns, cache and cdn corpus goals × 2 trials, OpenAI adapter, C = 8) runs against the stand-in
// upstream (test/providers/upstream-server.ts: answers in 50-200 ms) in a process of its own and
// is SIGKILLed at a random moment (1-4 s after its process starts); `run --resume` is started again and killed
// again, until KILLS kills have landed, then left to finish (a run that finishes between kills
// makes way for a fresh one). Per kill, from the run's journals:
//   in flight   sends the killed session made that never returned (spend.jsonl);
//   re-sent     calls a later session sent for a trial and request that an earlier session had
//               already got an answer for (calls.jsonl): what a resume must not buy twice;
// and per run, once it completed: trials lost (planned, never recorded) and duplicated (a key with
// two records that are not errors). The claim: re-sent <= in flight (0 expected), 0 lost, 0 duplicated.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../harness/package.ts";
import { readCallJournal } from "../harness/run/call-journal.ts";
import { readSpend } from "../harness/run/journal.ts";
import { readManifest } from "../harness/run/manifest.ts";
import { readTrialLog, RUN_FILES } from "../harness/run/store.ts";
import { trialKey, type TrialRecord } from "../src/formats/records.ts";
import { startUpstreamServer } from "../test/providers/upstream-server.ts";
import type { CallJournalLine } from "../src/formats/call-journal.ts";

const KILLS = Number(process.argv[2] ?? 20);
const BIN = join(PACKAGE_ROOT, "bin", "fieldtest.js");

const upstream = await startUpstreamServer({ plannerMs: 110, criticMs: 60, spread: 0.45 });
const work = mkdtempSync(join(tmpdir(), "ft-bench-resume-"));

/** `fieldtest ARGS` in a process of its own; killed after `killAfterMs` unless it ends first. Resolves with whether the kill landed. */
function fieldtest(args: string[], killAfterMs: number | null): Promise<boolean> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: "ignore", env: { ...process.env, CI: "1", OPENAI_API_KEY: "sk-bench-resume" } });
  let killed = false;
  const timer = killAfterMs === null ? null : setTimeout(() => ((killed = true), child.kill("SIGKILL")), killAfterMs);
  return new Promise((resolve) =>
    child.on("close", () => {
      if (timer) clearTimeout(timer);
      resolve(killed);
    }),
  );
}

/** Sends of `session` that never returned: in flight when its process died. */
function inFlight(dir: string, session: string): number {
  const open = new Set<number>();
  readSpend(dir, (line) => {
    if (line.session !== session) return;
    if (line.event === "sent") open.add(line.id);
    else open.delete(line.id);
  });
  return open.size;
}

/** Calls of a session for a trial and request an earlier session already had an answer for (the n-th such request against the n-th answer). */
function resentAnswered(lines: readonly CallJournalLine[]): number {
  const answered = new Map<string, { session: string; count: number }[]>();
  let resent = 0;
  for (const l of lines) {
    const key = `${l.trial_key} ${l.call.request_sha256}`;
    const earlier = (answered.get(key) ?? []).filter((a) => a.session !== l.session).reduce((n, a) => n + a.count, 0);
    const mine = (answered.get(key) ?? []).find((a) => a.session === l.session);
    if ((mine?.count ?? 0) < earlier) resent++;
    if (l.call.outcome !== "error") {
      if (mine) mine.count++;
      else answered.set(key, [...(answered.get(key) ?? []), { session: l.session, count: 1 }]);
    }
  }
  return resent;
}

let kills = 0;
let flying = 0;
let runs = 0;
let resent = 0;
let lost = 0;
let duplicated = 0;
let trials = 0;
while (kills < KILLS) {
  const dir = join(work, `run-${runs++}`);
  const fresh = [
    "run",
    "--provider",
    "openai",
    "--model",
    "gpt-4o-mini",
    "--base-url",
    upstream.url,
    "--only",
    "db-*,dns-*,cache-*,cdn-*",
    "--suite",
    "corpus",
    "--trials",
    "2",
    "--concurrency",
    "8",
    "--out",
    dir,
  ];
  for (;;) {
    // A kill before the run folder was made leaves nothing to resume: the run starts afresh (--force: a lock may be left).
    const started = existsSync(join(dir, RUN_FILES.manifest));
    const killAfter = kills < KILLS ? 1000 + Math.random() * 3000 : null;
    const sessionsBefore = started ? readManifest(dir).sessions.length : 0;
    const killed = await fieldtest(started ? ["run", "--resume", dir] : [...fresh, "--force"], killAfter);
    if (!existsSync(join(dir, RUN_FILES.manifest))) continue;
    const manifest = readManifest(dir);
    if (killed) {
      kills++;
      const session = manifest.sessions[sessionsBefore];
      if (session) flying += inFlight(dir, session.id);
      continue;
    }
    if (manifest.state === "completed") break;
  }
  const records = readTrialLog(dir, (r: TrialRecord) => r).records;
  const planned = readManifest(dir).plan.planned;
  trials += planned;
  lost += planned - records.length;
  const counted = new Map<string, number>();
  for (const r of records) if (r.status !== "error") counted.set(trialKey(r), (counted.get(trialKey(r)) ?? 0) + 1);
  duplicated += [...counted.values()].filter((n) => n > 1).length;
  resent += resentAnswered(readCallJournal(dir));
}
await upstream.close();
console.log(`${kills} kills over ${runs} run(s) (${trials} trials in all) against an upstream answering in 50-200 ms:`);
console.log(`  calls in flight at the kills: ${flying}`);
console.log(`  answered calls sent again by a resume: ${resent}   (claim: <= ${flying}, expected 0)`);
console.log(`  trials lost: ${lost}, duplicated: ${duplicated}`);
process.exit(0);
