import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSpend, runSpend, SpendJournal, SpendTally } from "../../harness/run/journal.ts";
import { readTrialLog, RUN_FILES } from "../../harness/run/store.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import { trialKey, type SpendLine } from "../../src/formats/records.ts";
import type { AttemptEvent } from "../../src/providers/types.ts";
import { cli, smallCorpus, tempDir, testHost } from "./helpers.ts";

const AT = "2026-01-01T00:00:00.000Z";
const sent = (session: string, id: number, provider = "openai", role: "planner" | "critic" = "critic"): SpendLine => ({
  schema_version: 1,
  event: "sent",
  session,
  id,
  at: AT,
  trial_key: "boundary/a/0",
  role,
  provider,
  model: "m",
  round: 0,
  attempt: 0,
  index: 0,
});
const returned = (
  session: string,
  id: number,
  cost_usd: number | null,
  usage: { input_tokens: number; output_tokens: number } | null,
  over: Partial<Extract<SpendLine, { event: "returned" }>> = {},
): SpendLine => ({
  schema_version: 1,
  event: "returned",
  session,
  id,
  at: AT,
  role: "critic",
  outcome: "ok",
  error_class: null,
  http_status: 200,
  usage,
  cost_usd,
  ...over,
});

describe("spend tally", () => {
  it("sums sends per session: calls are sends, cost the known costs, a paid send with no return unknown, a sim one free", () => {
    const t = new SpendTally();
    for (const line of [
      sent("1-a", 0),
      returned("1-a", 0, 0.25, { input_tokens: 100, output_tokens: 20 }),
      sent("1-a", 1),
      // killed before its return: may have been billed
      sent("1-a", 2, "sim"),
      // a sim send in flight at the crash cost nothing
      sent("2-b", 0),
      returned("2-b", 0, null, null),
      // a return whose send line is missing still counts as a call
      returned("2-b", 7, 0.5, { input_tokens: 1, output_tokens: 1 }),
    ]) {
      t.add(line);
    }
    expect(t.sessionIds()).toEqual(["1-a", "2-b"]);
    expect(t.session("1-a")).toEqual({ calls: 3, input_tokens: 100, output_tokens: 20, cost_usd: 0.25, unknown_cost_calls: 1, cost_usd_is_lower_bound: true });
    expect(t.session("2-b")).toEqual({ calls: 2, input_tokens: 1, output_tokens: 1, cost_usd: 0.5, unknown_cost_calls: 1, cost_usd_is_lower_bound: true });
    expect(t.total()).toEqual({ calls: 5, input_tokens: 101, output_tokens: 21, cost_usd: 0.75, unknown_cost_calls: 2, cost_usd_is_lower_bound: true });
  });

  it("tokens no send reported are unknown (null), not 0; a session that reported none leaves the run's sum alone", () => {
    const t = new SpendTally();
    for (const line of [sent("1-a", 0, "sim"), returned("1-a", 0, 0, null), sent("2-b", 0), returned("2-b", 0, 0.5, { input_tokens: 10, output_tokens: 2 })])
      t.add(line);
    expect(t.session("1-a")).toMatchObject({ calls: 1, input_tokens: null, output_tokens: null, cost_usd: 0, cost_usd_is_lower_bound: false });
    expect(t.total()).toMatchObject({ calls: 2, input_tokens: 10, output_tokens: 2 });
    const none = new SpendTally();
    none.add(sent("1-a", 0, "sim"));
    expect(none.total()).toMatchObject({ input_tokens: null, output_tokens: null });
  });

  it("keeps the dearest answered send per role; an error's $0 says nothing of an answer's price", () => {
    const t = new SpendTally();
    t.add(returned("1-a", 0, 0, null, { outcome: "error", error_class: "server_error", http_status: 500 }));
    expect(t.dearest).toEqual({});
    t.add(returned("1-a", 1, 0.5, { input_tokens: 1, output_tokens: 1 }));
    t.add(returned("1-a", 2, 0.25, { input_tokens: 1, output_tokens: 1 }));
    t.add(returned("1-a", 3, 0.125, { input_tokens: 1, output_tokens: 1 }, { role: "planner" }));
    expect(t.dearest).toEqual({ critic: 0.5, planner: 0.125 });
  });

  it("per session of the manifest, and a session only the journal knows is still money spent", () => {
    const t = new SpendTally();
    for (const line of [sent("1-a", 0), returned("1-a", 0, 0.25, null), sent("9-z", 0)]) t.add(line);
    const spend = runSpend([{ id: "1-a", started_at: AT, finished_at: AT, outcome: "completed" }], t);
    expect(spend.sessions.map((s) => [s.id, s.outcome, s.calls])).toEqual([
      ["1-a", "completed", 1],
      ["9-z", "unknown", 1],
    ]);
    expect(spend.calls).toBe(2);
  });
});

describe("spend journal", () => {
  it("writes each send as it leaves and as it returns, and reads back what it wrote", () => {
    const dir = tempDir("ft-journal-");
    expect(readSpend(dir).journaled).toBe(false);
    const journal = new SpendJournal(dir, "1-a", () => new Date(AT));
    const events: AttemptEvent[] = [
      { phase: "sent", id: 0, role: "critic", provider: "openai", model: "gpt-4o-mini", round: 0, attempt: 0, index: 0 },
      { phase: "returned", id: 0, role: "critic", outcome: "error", error_class: "timeout", http_status: null, usage: null, cost_usd: null },
    ];
    const written = events.map((e) => journal.record(e, "boundary/a/0"));
    journal.close();
    // a return after close (a send abandoned with its sweep) writes nothing: its send stays unknown cost
    journal.record(events[1]!, null);
    const read: SpendLine[] = [];
    const { tally, journaled } = readSpend(dir, (l) => read.push(l));
    expect(journaled).toBe(true);
    expect(existsSync(join(dir, RUN_FILES.spend))).toBe(true);
    expect(read).toEqual(written);
    expect(read[0]).toMatchObject({ event: "sent", session: "1-a", trial_key: "boundary/a/0", provider: "openai" });
    expect(tally.total()).toMatchObject({ calls: 1, unknown_cost_calls: 1, cost_usd_is_lower_bound: true });
  });
});

describe("the spend journal of a real sweep", () => {
  it("keys every send to the trial that made it: each trial's sends are exactly its recorded transport attempts", async () => {
    const root = tempDir("ft-journal-keys-");
    const corpusRoot = smallCorpus(root, 3, 2);
    const out = join(root, "run");
    expect(await runSweep(cli({ trials: "3", concurrency: "4", out }), {}, { ...realEngine({}, corpusRoot), writeReport: undefined }, testHost())).toBe(0);
    const sent = new Map<string, number>();
    readSpend(out, (line) => {
      if (line.event === "sent") sent.set(String(line.trial_key), (sent.get(String(line.trial_key)) ?? 0) + 1);
    });
    const attempts = new Map(readTrialLog(out).records.map((r) => [trialKey(r), r.calls.reduce((n, c) => n + c.transport_attempts.length, 0)]));
    expect(attempts.size).toBe(15);
    expect(sent).toEqual(attempts);
  });
});
