import { join } from "node:path";
import { CALL_JOURNAL_SCHEMA_VERSION, CallJournalLineSchema, type CallJournalLine } from "../../src/formats/call-journal.ts";
import type { CallRecord } from "../../src/formats/records.ts";
import type { JournaledCall } from "../../src/providers/answered.ts";
import { isBilled } from "../../src/providers/prices.ts";
import { JsonlLog, readJsonl } from "./jsonl.ts";
import { RUN_FILES } from "./store.ts";

const CALL_LINE = { schema: CallJournalLineSchema, what: "a call journal line" };

/**
 * Whether a call is worth keeping for a resume: one that bought an answer (or a failure) from a
 * billed provider. The sim answers the same again for nothing, and a call refused by the budget
 * must be asked again under the resume's.
 */
const isJournaled = (call: CallRecord): boolean => isBilled(call.context.provider) && call.error_class !== "budget_exceeded";

/**
 * The call journal of one session: every call a trial makes of a billed provider is appended (and
 * flushed) as it completes, before its trial is recorded, so that a resume of a trial that was cut
 * off (a crash, Ctrl-C, a budget) answers its earlier calls from here and sends again only the
 * one that was in flight.
 */
export class CallJournal {
  /** Opened at the first call worth keeping: a run of the sim alone has no call journal. */
  private log: JsonlLog | null = null;
  private closed = false;

  constructor(
    private readonly dir: string,
    readonly session: string,
  ) {}

  record(trialKey: string, call: CallRecord, failure: string | null): void {
    if (this.closed || !isJournaled(call)) return;
    this.log ??= new JsonlLog(join(this.dir, RUN_FILES.calls));
    this.log.append({ schema_version: CALL_JOURNAL_SCHEMA_VERSION, session: this.session, trial_key: trialKey, call, failure } satisfies CallJournalLine);
  }

  close(): void {
    this.closed = true;
    this.log?.close();
  }
}

/** Every line of a run's call journal, in order (a torn last line, a crash's, is skipped; none when the run has no journal). */
export function readCallJournal(dir: string): CallJournalLine[] {
  const lines: CallJournalLine[] = [];
  readJsonl(join(dir, RUN_FILES.calls), CALL_LINE, (line) => void lines.push(line));
  return lines;
}

/** The journaled calls of the trials `wanted` names (those a resume runs again from their start), per trial, in the order they were made. */
export function readJournaledCalls(dir: string, wanted: (trialKey: string) => boolean): Map<string, JournaledCall[]> {
  const byTrial = new Map<string, JournaledCall[]>();
  readJsonl(join(dir, RUN_FILES.calls), CALL_LINE, (line) => {
    if (!wanted(line.trial_key)) return;
    const calls = byTrial.get(line.trial_key) ?? [];
    calls.push({ call: line.call, failure: line.failure });
    byTrial.set(line.trial_key, calls);
  });
  return byTrial;
}
