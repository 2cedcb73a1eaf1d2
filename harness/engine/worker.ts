import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { stopGroup, Tail, type EngineProcesses, type Launch } from "./process.ts";
import type { EngineEnding } from "./trial.ts";

type AnswerLine = { trial_key?: unknown; result?: unknown; error?: unknown };

/** A line as a JSON object, or null (anything but an answer line breaks the protocol). */
function answerLine(line: string): AnswerLine | null {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as AnswerLine) : null;
  } catch {
    return null;
  }
}

/** A worker's answer to one trial: its result (or why there is none), and what it wrote to stderr meanwhile. */
interface WorkerTurn {
  ending: EngineEnding;
  /** The `result` of its answer line; undefined when it gave none. */
  result: unknown;
  /** The `error` of its answer line, when it said it could not run the trial. */
  error: string | null;
  stderrTail: string | null;
}

interface Pending {
  trialKey: string;
  settle: (turn: Omit<WorkerTurn, "stderrTail">) => void;
}

/**
 * One long-lived engine process of the worker protocol (docs/reference/engine-protocol.md): it
 * reads one JSON line per trial on stdin and answers with one JSON line on stdout, so that an
 * engine that takes seconds to start pays it once per slot. A worker that exits, hangs past a
 * trial's time or writes anything but its answer is stopped (the trial has no verdict) and started
 * again for the next trial.
 */
export class WorkerSlot {
  private child: ChildProcess | null = null;
  private pending: Pending | null = null;
  private tail = new Tail();

  constructor(
    private readonly processes: EngineProcesses,
    private readonly start: () => Launch,
  ) {}

  private spawn(): ChildProcess {
    const child = this.processes.launch(this.start());
    this.tail = new Tail();
    child.stderr?.on("data", (c: Buffer) => this.tail.push(c));
    const lines = createInterface({ input: child.stdout!, crlfDelay: Infinity });
    lines.on("line", (line) => this.onLine(child, line));
    child.once("error", (e) => this.fail(child, `it could not be started: ${e.message}`));
    child.once("close", (code, signal) => this.fail(child, `the worker ${signal ? `was ended by ${signal}` : `exited with code ${code}`} before it answered`));
    return child;
  }

  private onLine(child: ChildProcess, line: string): void {
    if (line.trim() === "") return;
    const p = this.pending;
    const answer = answerLine(line);
    if (p === null || answer === null || answer.trial_key !== p.trialKey) {
      const what =
        answer === null
          ? "a line that is not a JSON object"
          : p === null
            ? "a line while no trial was given to it"
            : `an answer for ${JSON.stringify(answer.trial_key)}`;
      return this.fail(child, `the worker broke the protocol: it wrote ${what} on stdout (${line.slice(0, 120)})`);
    }
    this.pending = null;
    const error = typeof answer.error === "string" ? answer.error : null;
    p.settle({ ending: { kind: "answered" }, result: answer.result, error });
  }

  /** The worker cannot be trusted any more: it is stopped, and the trial it had (if any) has no verdict. */
  private fail(child: ChildProcess, message: string): void {
    if (this.child !== child) return;
    this.child = null;
    stopGroup(child);
    const p = this.pending;
    this.pending = null;
    p?.settle({ ending: { kind: "failed", message }, result: undefined, error: null });
  }

  /** Hands the worker one trial's line and waits for its answer, at most `timeoutMs`. */
  run(trialKey: string, line: unknown, timeoutMs: number): Promise<WorkerTurn> {
    const child = (this.child ??= this.spawn());
    this.tail = new Tail();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.pending?.trialKey !== trialKey) return;
        this.pending = null;
        this.child = null;
        stopGroup(child);
        resolve({ ending: { kind: "timeout", afterMs: timeoutMs }, result: undefined, error: null, stderrTail: this.tail.read() });
      }, timeoutMs);
      this.pending = {
        trialKey,
        settle: (turn) => {
          clearTimeout(timer);
          resolve({ ...turn, stderrTail: this.tail.read() });
        },
      };
      child.stdin!.write(`${JSON.stringify(line)}\n`);
    });
  }

  /** Ends the worker: its stdin closes (a worker exits when its input ends), and it is stopped if it lingers. */
  close(): void {
    const child = this.child;
    this.child = null;
    if (child === null) return;
    child.stdin?.end();
    const lingering = setTimeout(() => stopGroup(child), 2000);
    lingering.unref();
    child.once("close", () => clearTimeout(lingering));
  }
}
