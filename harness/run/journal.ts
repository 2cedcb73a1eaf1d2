import { join } from "node:path";
import { SpendLineSchema, SPEND_SCHEMA_VERSION, type Role, type Spend, type SpendLine } from "../../src/formats/records.ts";
import type { RunSpend } from "../../src/formats/summary.ts";
import { isBilled } from "../../src/providers/prices.ts";
import type { AttemptEvent } from "../../src/providers/types.ts";
import { JsonlLog, readJsonl } from "./jsonl.ts";
import type { Session } from "../../src/formats/manifest.ts";
import { RUN_FILES } from "./store.ts";

interface SessionTally {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  unknown_returned: number;
  /** Returns that reported usage: without any, the tokens are unknown, not 0. */
  usage_reported: number;
  /** Sends not yet returned, by id, with whether they may have been billed. */
  pending: Map<number, boolean>;
}

const emptyTally = (): SessionTally => ({
  calls: 0,
  input_tokens: 0,
  output_tokens: 0,
  cost_usd: 0,
  unknown_returned: 0,
  usage_reported: 0,
  pending: new Map(),
});

function spendOf(t: SessionTally): Spend {
  const unknown = t.unknown_returned + [...t.pending.values()].filter(Boolean).length;
  return {
    calls: t.calls,
    input_tokens: t.usage_reported > 0 ? t.input_tokens : null,
    output_tokens: t.usage_reported > 0 ? t.output_tokens : null,
    cost_usd: t.cost_usd,
    unknown_cost_calls: unknown,
    cost_usd_is_lower_bound: unknown > 0,
  };
}

export const NO_SPEND: Spend = spendOf(emptyTally());

/** The dearest answered send of each role (an error's $0 says nothing of what an answer costs). */
export type DearestSends = Readonly<Partial<Record<Role, number>>>;

/** `dearest` with one more journal line taken in. */
export function dearerOf(dearest: DearestSends, line: SpendLine): DearestSends {
  if (line.event !== "returned" || line.outcome !== "ok" || line.cost_usd === null) return dearest;
  const was = dearest[line.role];
  return was !== undefined && was >= line.cost_usd ? dearest : { ...dearest, [line.role]: line.cost_usd };
}

/** Spend summed from journal lines, per session (in order of first appearance) and in all. */
export class SpendTally {
  private readonly sessions = new Map<string, SessionTally>();
  /** The dearest answered send of each role, over every session (what the budget reserves per send in flight). */
  dearest: DearestSends = {};

  add(line: SpendLine): void {
    this.dearest = dearerOf(this.dearest, line);
    let t = this.sessions.get(line.session);
    if (t === undefined) this.sessions.set(line.session, (t = emptyTally()));
    if (line.event === "sent") {
      t.calls++;
      t.pending.set(line.id, isBilled(line.provider));
      return;
    }
    // A return whose send line is missing still counts as a call.
    if (!t.pending.delete(line.id)) t.calls++;
    if (line.usage !== null) {
      t.usage_reported++;
      t.input_tokens += line.usage.input_tokens;
      t.output_tokens += line.usage.output_tokens;
    }
    if (line.cost_usd === null) t.unknown_returned++;
    else t.cost_usd += line.cost_usd;
  }

  session(id: string): Spend {
    const t = this.sessions.get(id);
    return t ? spendOf(t) : NO_SPEND;
  }

  sessionIds(): string[] {
    return [...this.sessions.keys()];
  }

  total(): Spend {
    return sumSpend([...this.sessions.values()].map(spendOf));
  }
}

/** The sum of the known values; null when none is known. */
function sumKnown(values: readonly (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : known.reduce((a, v) => a + v, 0);
}

function sumSpend(parts: readonly Spend[]): Spend {
  const unknown = parts.reduce((n, s) => n + s.unknown_cost_calls, 0);
  return {
    calls: parts.reduce((n, s) => n + s.calls, 0),
    input_tokens: sumKnown(parts.map((s) => s.input_tokens)),
    output_tokens: sumKnown(parts.map((s) => s.output_tokens)),
    cost_usd: parts.reduce((n, s) => n + s.cost_usd, 0),
    unknown_cost_calls: unknown,
    cost_usd_is_lower_bound: unknown > 0,
  };
}

const SPEND_LINE = { schema: SpendLineSchema, what: "a spend journal line" };

/**
 * Reads a run's spend journal (validated line by line; a torn last line skipped) into a tally.
 * `journaled` is false when the run has none (an imported run): its spend is unknown, not 0.
 */
export function readSpend(dir: string, visit: (line: SpendLine) => void = () => {}): { tally: SpendTally; torn: number; journaled: boolean } {
  const file = join(dir, RUN_FILES.spend);
  const tally = new SpendTally();
  const { torn, found } = readJsonl(file, SPEND_LINE, (line) => {
    tally.add(line);
    visit(line);
  });
  return { tally, torn, journaled: found };
}

/**
 * The spend journal of one session: every provider send is appended (and flushed) as it leaves
 * and as it returns, before the call, let alone its trial, is recorded (docs/design.md §8), so a crash
 * never makes a run forget what it spent.
 */
export class SpendJournal {
  private readonly log: JsonlLog;

  constructor(
    dir: string,
    readonly session: string,
    private readonly now: () => Date,
  ) {
    this.log = new JsonlLog(join(dir, RUN_FILES.spend));
  }

  /** Journals one send event; returns the line written. */
  record(event: AttemptEvent, trialKey: string | null): SpendLine {
    const { session } = this;
    const { id } = event;
    const at = this.now().toISOString();
    // Whole literals, no spread of a shared head: V8 builds a spread followed by this many members on its slow path (several µs a line).
    const line: SpendLine =
      event.phase === "sent"
        ? {
            schema_version: SPEND_SCHEMA_VERSION,
            session,
            id,
            at,
            event: "sent",
            trial_key: trialKey,
            role: event.role,
            provider: event.provider,
            model: event.model,
            round: event.round,
            attempt: event.attempt,
            index: event.index,
          }
        : {
            schema_version: SPEND_SCHEMA_VERSION,
            session,
            id,
            at,
            event: "returned",
            role: event.role,
            outcome: event.outcome,
            error_class: event.error_class,
            http_status: event.http_status,
            usage: event.usage,
            cost_usd: event.cost_usd,
          };
    this.log.append(line);
    return line;
  }

  close(): void {
    this.log.close();
  }
}

/** The run's spend for reports: in all, then per session of the manifest (spend from the journal, which is the truth). */
export function runSpend(sessions: readonly Pick<Session, "id" | "started_at" | "finished_at" | "outcome">[], tally: SpendTally): RunSpend {
  const known = new Set(sessions.map((s) => s.id));
  // A session the journal knows but the manifest does not (never so far) is still money spent.
  const extra = tally
    .sessionIds()
    .filter((id) => !known.has(id))
    .map((id) => ({ id, started_at: "", finished_at: null, outcome: "unknown" }));
  return {
    ...tally.total(),
    sessions: [...sessions, ...extra].map((s) => ({
      id: s.id,
      started_at: s.started_at,
      finished_at: s.finished_at,
      outcome: s.outcome,
      ...tally.session(s.id),
    })),
  };
}
