import pLimit from "p-limit";
import type { CallRecord, EngineOutcome, TrialRecord } from "../../src/formats/records.ts";
import type { TrialWork } from "./work.ts";

/** Runs one trial: the engine on a corpus goal, or the critic on a boundary fixture. */
export type TrialExecutor = (work: TrialWork) => Promise<EngineOutcome>;

/**
 * How a sweep stops early. `drain`: start nothing new, record what is in flight. `abandon`: start
 * nothing new and record nothing more (in-flight outcomes are dropped, so a resume re-runs them).
 */
export class StopControl {
  mode: "run" | "drain" | "abandon" = "run";
  reason: string | null = null;
  private wake: (() => void) | null = null;

  stop(mode: "drain" | "abandon", reason: string): void {
    if (mode === "abandon" || this.mode === "run") {
      this.mode = mode;
      this.reason ??= reason;
    }
    if (mode === "abandon") this.wake?.();
  }

  get running(): boolean {
    return this.mode === "run";
  }

  get abandoning(): boolean {
    return this.mode === "abandon";
  }

  /** Resolves when the sweep is abandoned (used to stop waiting for in-flight trials). */
  abandoned(): Promise<void> {
    return this.mode === "abandon" ? Promise.resolve() : new Promise((resolve) => (this.wake = resolve));
  }
}

export type TrialEvent =
  | { type: "start"; work: TrialWork; at: number }
  | { type: "recorded"; work: TrialWork; record: TrialRecord; at: number }
  | { type: "dropped"; work: TrialWork; at: number };

interface ExecuteOptions {
  trials: readonly TrialWork[];
  concurrency: number;
  execute: TrialExecutor;
  itemHash: (work: TrialWork) => string;
  /** Persist a finished trial (appended and flushed before it counts as done). */
  write: (record: TrialRecord) => void;
  stop: StopControl;
  /** Whether this trial's outcome is partial (a call of it was refused) and must be dropped. */
  wasCut: (key: string) => boolean;
  now: () => Date;
  onEvent?: (e: TrialEvent) => void;
}

function sumCost(calls: readonly Pick<CallRecord, "cost_usd">[]): number | null {
  let total = 0;
  for (const c of calls) {
    if (c.cost_usd === null) return null;
    total += c.cost_usd;
  }
  return total;
}

function toRecord(work: TrialWork, outcome: EngineOutcome, itemHash: string, started: Date, finished: Date): TrialRecord {
  return {
    schema_version: 1,
    suite: work.suite,
    item_id: work.item_id,
    trial: work.trial,
    status: outcome.status,
    escalation_reason: outcome.escalation_reason,
    escalation_reasons: outcome.escalation_reasons,
    error: outcome.error,
    item_hash: itemHash,
    rounds: outcome.rounds,
    critic_verdict: outcome.critic_verdict,
    verdict: outcome.verdict,
    calls: outcome.calls,
    cost_usd: sumCost(outcome.calls),
    latency_ms: finished.getTime() - started.getTime(),
    started_at: started.toISOString(),
    finished_at: finished.toISOString(),
    ...(outcome.engine ? { engine: outcome.engine } : {}),
  };
}

/** An executor that threw: an infrastructure error, recorded as such (`--retry-errors` re-runs it). */
function errorOutcome(e: unknown): EngineOutcome {
  return {
    status: "error",
    escalation_reason: null,
    escalation_reasons: [],
    error: e instanceof Error ? e.message : String(e),
    rounds: [],
    critic_verdict: null,
    verdict: "escalate",
    calls: [],
  };
}

/**
 * Runs the trials with at most `concurrency` in flight, writing each record as it finishes.
 * Resolves when every started trial is recorded or dropped, or at once when the sweep is abandoned.
 */
export async function executeTrials(o: ExecuteOptions): Promise<void> {
  const limit = pLimit(o.concurrency);
  const one = async (work: TrialWork): Promise<void> => {
    if (!o.stop.running) return;
    const started = o.now();
    o.onEvent?.({ type: "start", work, at: started.getTime() });
    let outcome: EngineOutcome;
    try {
      outcome = await o.execute(work);
    } catch (e) {
      outcome = errorOutcome(e);
    }
    const finished = o.now();
    if (o.stop.abandoning || o.wasCut(work.key)) {
      o.onEvent?.({ type: "dropped", work, at: finished.getTime() });
      return;
    }
    const record = toRecord(work, outcome, o.itemHash(work), started, finished);
    o.write(record);
    o.onEvent?.({ type: "recorded", work, record, at: finished.getTime() });
  };
  const all = Promise.all(o.trials.map((t) => limit(() => one(t))));
  try {
    await Promise.race([all, o.stop.abandoned()]);
  } finally {
    // Also when a record could not be written: nothing queued starts after it.
    limit.clearQueue();
  }
}
