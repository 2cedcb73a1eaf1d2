import { spawn, type ChildProcess } from "node:child_process";
import type { EngineEnding } from "./trial.ts";

/** How much of a process's stderr a trial keeps: its last lines, where an engine says why it failed. */
const STDERR_TAIL_BYTES = 4096;
/** The most stdout read from one process (a command's result line, a worker's stream of them). */
const MAX_STDOUT_BYTES = 64 * 1024 * 1024;
/** How long a stopped process has to exit after SIGTERM before it is killed. */
const GRACE_MS = 2000;

export interface Launch {
  argv: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The last `STDERR_TAIL_BYTES` of a stream. */
export class Tail {
  private text = "";
  push(chunk: Buffer | string): void {
    this.text = (this.text + chunk.toString()).slice(-STDERR_TAIL_BYTES);
  }
  read(): string | null {
    return this.text === "" ? null : this.text;
  }
}

/** Every engine process of this fieldtest, whoever started it: killed if fieldtest exits. */
const alive = new Set<ChildProcess>();
let exitHooked = false;

function killGroupNow(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** SIGTERM to the process's whole group (an engine's own children included), SIGKILL after a grace period. */
export function stopGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
  } catch {
    return; // Already gone.
  }
  setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) killGroupNow(child);
  }, GRACE_MS).unref();
}

/** The engine processes one executor started: each in a group of its own, so that stopping it stops whatever it started. */
export class EngineProcesses {
  private readonly running = new Set<ChildProcess>();

  launch(l: Launch): ChildProcess {
    if (!exitHooked) {
      exitHooked = true;
      // A fieldtest that exits leaves no engine behind.
      process.once("exit", () => alive.forEach(killGroupNow));
    }
    const child = spawn(l.argv[0]!, l.argv.slice(1), { cwd: l.cwd, env: l.env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    this.running.add(child);
    alive.add(child);
    child.once("close", () => {
      this.running.delete(child);
      alive.delete(child);
    });
    // A write to a process that is gone arrives as an EPIPE on its stdin: the close says what happened.
    child.stdin?.on("error", () => undefined);
    return child;
  }

  /** Stops every process still running (the sweep ended or was abandoned). */
  stopAll(): void {
    this.running.forEach(stopGroup);
  }
}

interface CommandEnd {
  ending: EngineEnding;
  stdout: string;
  stderrTail: string | null;
}

/** One process per trial: started, given its time, its stdout kept (up to MAX_STDOUT_BYTES), and stopped when the time is up. */
export function runCommand(processes: EngineProcesses, l: Launch, timeoutMs: number, okCodes: readonly number[]): Promise<CommandEnd> {
  return new Promise((resolve) => {
    const tail = new Tail();
    const out: Buffer[] = [];
    let outBytes = 0;
    let timedOut = false;
    let spawnError: Error | null = null;
    const child = processes.launch(l);
    child.stdin?.end();
    child.stdout?.on("data", (c: Buffer) => {
      outBytes += c.length;
      if (outBytes <= MAX_STDOUT_BYTES) out.push(c);
    });
    child.stderr?.on("data", (c: Buffer) => tail.push(c));
    child.once("error", (e) => (spawnError = e));
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup(child);
    }, timeoutMs);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      const ending: EngineEnding = spawnError
        ? { kind: "failed", message: `it could not be started: ${spawnError.message}` }
        : timedOut
          ? { kind: "timeout", afterMs: timeoutMs }
          : outBytes > MAX_STDOUT_BYTES
            ? { kind: "failed", message: `it wrote more than ${MAX_STDOUT_BYTES} bytes to stdout` }
            : { kind: "exited", code, signal, ok: code !== null && okCodes.includes(code) };
      resolve({ ending, stdout: Buffer.concat(out).toString("utf8"), stderrTail: tail.read() });
    });
  });
}

/** The last line of a text that parses as JSON: where a command protocol engine prints its result. */
export function lastJsonLine(text: string): unknown {
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    try {
      return JSON.parse(line);
    } catch {
      // Not the result: an engine may log to stdout before it.
    }
  }
  return undefined;
}
