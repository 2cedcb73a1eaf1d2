import type { Spend } from "../../src/formats/records.ts";
import { formatSpend } from "./budget.ts";
import type { LoopDelay } from "../../src/event-loop.ts";
import type { TrialEvent } from "./execute.ts";
import { type TrialWork } from "./work.ts";
import { RUN_SUITES, type RunSuite } from "../../src/formats/run-config.ts";

interface SuiteProgress {
  suite: RunSuite;
  total: number;
  done: number;
  errors: number;
}

interface InFlight {
  key: string;
  ageMs: number;
}

type SessionSpend = Pick<Spend, "calls" | "cost_usd" | "unknown_cost_calls">;

export interface ProgressSnapshot {
  suites: SuiteProgress[];
  done: number;
  total: number;
  /** Trials per second since this session started. */
  rate: number;
  etaMs: number | null;
  /** This session's spend, from the spend journal: every send, returned or still in flight. */
  spend: SessionSpend;
  /** Longest-running trials in flight, slowest first. */
  slowest: InFlight[];
  elapsedMs: number;
  /** The event loop seen so far (null when not measured). */
  loop: LoopDelay | null;
}

/** Live counters of one session, fed by trial events; `snapshot` is what the views draw. */
export class Progress {
  private readonly suites = new Map<RunSuite, SuiteProgress>();
  private readonly inFlight = new Map<string, number>();
  private doneThisSession = 0;

  constructor(
    all: readonly TrialWork[],
    pending: readonly TrialWork[],
    private readonly startedAt: number,
    private readonly spend: () => SessionSpend,
    private readonly loop: () => LoopDelay | null = () => null,
  ) {
    for (const s of RUN_SUITES) {
      const total = all.filter((t) => t.suite === s).length;
      if (total > 0) this.suites.set(s, { suite: s, total, done: total - pending.filter((t) => t.suite === s).length, errors: 0 });
    }
  }

  onEvent(e: TrialEvent): void {
    if (e.type === "start") this.inFlight.set(e.work.key, e.at);
    else this.inFlight.delete(e.work.key);
    if (e.type === "recorded") {
      const s = this.suites.get(e.work.suite)!;
      s.done++;
      if (e.record.status === "error") s.errors++;
      this.doneThisSession++;
    }
  }

  snapshot(now: number): ProgressSnapshot {
    const suites = [...this.suites.values()].map((s) => ({ ...s }));
    const done = suites.reduce((n, s) => n + s.done, 0);
    const total = suites.reduce((n, s) => n + s.total, 0);
    const elapsedMs = Math.max(1, now - this.startedAt);
    const rate = this.doneThisSession / (elapsedMs / 1000);
    const slowest = [...this.inFlight.entries()]
      .map(([key, at]) => ({ key, ageMs: now - at }))
      .sort((a, b) => b.ageMs - a.ageMs)
      .slice(0, 3);
    return {
      suites,
      done,
      total,
      rate,
      etaMs: rate > 0 ? ((total - done) / rate) * 1000 : null,
      spend: this.spend(),
      slowest,
      elapsedMs,
      loop: this.loop(),
    };
  }
}

export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return "--";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, "0")}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

export function formatUsd(v: number | null): string {
  return v === null ? "unknown" : `$${v.toFixed(v < 1 ? 4 : 2)}`;
}

/** One plain progress line (CI logs, pipes, NO_COLOR). */
export function progressLine(p: ProgressSnapshot): string {
  const suites = p.suites.map((s) => `${s.suite} ${s.done}/${s.total}${s.errors ? ` (${s.errors} err)` : ""}`).join("  ");
  const slow = p.slowest[0] ? `  slowest ${p.slowest[0].key} ${formatDuration(p.slowest[0].ageMs)}` : "";
  return `[${formatDuration(p.elapsedMs)}] ${suites}  ${p.rate.toFixed(1)}/s  eta ${formatDuration(p.etaMs)}  calls ${p.spend.calls}  spent ${formatSpend(p.spend)}${loopText(p.loop)}${slow}`;
}

/** `  loop p99 3.1 ms, busy 42%` when the event loop is measured (`label` names another loop). */
export function loopText(l: LoopDelay | null, label = "loop"): string {
  return l ? `  ${label} p99 ${l.delay_p99_ms.toFixed(1)} ms, busy ${Math.round(l.utilization * 100)}%` : "";
}

export interface ProgressReporter {
  stop(): void;
}

/** Whether the live view is ink (an interactive terminal) rather than plain periodic lines (CI, pipes, NO_COLOR). */
export function isInteractive(out: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  return out.isTTY === true && !env.NO_COLOR && !env.CI;
}

/** Plain progress: a line every `everyMs` and a last one at `stop`. Needs no ink (which only a terminal loads). */
export function startPlainProgress(progress: Progress, now: () => number, out: NodeJS.WriteStream, everyMs = 2000): ProgressReporter {
  const timer = setInterval(() => out.write(`${progressLine(progress.snapshot(now()))}\n`), everyMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      out.write(`${progressLine(progress.snapshot(now()))}\n`);
    },
  };
}
