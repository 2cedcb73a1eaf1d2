import { Worker } from "node:worker_threads";
import type { LoopDelay } from "../../event-loop.ts";
import { TransportError, type ProviderAdapter, type Reply, type SendOptions, type TransportErrorClass, type TransportTiming } from "../adapter.ts";
import type { LiveProvider } from "../registry.ts";
import type { RoleConfig } from "../config.ts";

/** What a role's adapter is built from; the thread builds its twin from the same. */
interface LiveSetup {
  provider: LiveProvider;
  role: RoleConfig;
  apiKey: string | undefined;
}

/** Client to thread: SDKs to load ahead, a role's adapter to build (once per thread), one send, or its event loop to watch and report. */
export type ToThread =
  | { kind: "preload"; providers: LiveProvider[]; rehearse: boolean }
  | { kind: "setup"; adapter: number; setup: LiveSetup }
  | { kind: "send"; id: number; adapter: number; json: string; timeoutMs: number; attempt: number; wire: boolean }
  | { kind: "watch-loop" }
  | { kind: "report-loop" };

/** Thread to client: how one send ended, with the exchange's timestamps; or what its event loop was like since it was asked to watch it. */
export type FromThread = SendEnd | { kind: "loop"; loop: LoopDelay | null };

export interface SendEnd {
  kind: "sent";
  id: number;
  startedAt: number | null;
  endedAt: number | null;
  reply?: Reply;
  failure?: { errorClass: TransportErrorClass; message: string; httpStatus: number | null; retryAfterMs: number | null };
  /** A throw that was no TransportError (an answer the adapter could not read), by name and message. */
  thrown?: { name: string; message: string };
}

/**
 * Sends HTTP requests on a worker thread of their own. The SDK's request building and parsing,
 * the sockets and the timestamps around each exchange run there, so a sweep's event loop (engine,
 * gates, records) does not delay a call's timing, and the call's work does not queue up the sweep's.
 */
export interface SendThread {
  /**
   * Starts the thread, which loads these providers' SDKs ahead of the first send (none: nothing
   * starts), and rehearses their send path when `burst`, the most sends the sweep starts at once,
   * is REHEARSED_BURST or more.
   */
  warm(providers: readonly LiveProvider[], burst: number): void;
  /** Watches the running thread's event loop, where calls are timed, until stopped; null when no thread runs. */
  watchLoop(): { stop(): Promise<LoopDelay | null> } | null;
  /** The adapter, its sends made on the thread by a twin built there from the same setup. */
  adopt(adapter: ProviderAdapter, setup: LiveSetup): ProviderAdapter;
}

interface Waiting {
  resolve: (reply: Reply) => void;
  reject: (e: Error) => void;
  timing: TransportTiming | undefined;
}

/**
 * The smallest first burst the thread rehearses for. A burst waits on the send path's cold code
 * once per send it starts before the code is compiled: 16 sends and more (the first wave at
 * C = 64 took 85-165 ms over its server time) gain from the rehearsal; at C = 8 the first wave
 * costs tens of ms once in a sweep of minutes, less than the rehearsal's own 60-90 ms of CPU.
 */
export const REHEARSED_BURST = 16;

/** The thread's script, compiled beside this module (every module runs compiled, in dist/). */
const THREAD_SCRIPT = new URL("./worker.js", import.meta.url);

/**
 * One worker thread, started when warmed or at the first send. It holds the process open only
 * while a send or a loop report is awaited. If it dies, every send in flight fails as an answer
 * that was never read (the client records it, not retried, of unknown cost: the request may have
 * gone out), and the next send starts a new thread.
 */
export function createSendThread(script: URL = THREAD_SCRIPT): SendThread {
  const setups: LiveSetup[] = [];
  const awaited = new AwaitedAnswers();
  let sends = 0;
  let worker: Worker | null = null;
  /** How many setups the running thread has been given. */
  let given = 0;

  function running(): Worker {
    if (worker === null) {
      // No inherited flags: a preload or a profiler meant for the process is not the thread's.
      const started = new Worker(script, { execArgv: [] });
      started.on("message", (m: FromThread) => {
        awaited.received(m);
        holdOpenWhileAwaited();
      });
      started.on("error", (e) => stopped(started, e.message));
      started.on("exit", (code) => stopped(started, `it exited with code ${code}`));
      worker = started;
      given = 0;
      holdOpenWhileAwaited();
    }
    for (; given < setups.length; given++) worker.postMessage({ kind: "setup", adapter: given, setup: setups[given]! } satisfies ToThread);
    return worker;
  }

  function stopped(which: Worker, why: string): void {
    if (worker !== which) return;
    worker = null;
    awaited.lose(why);
  }

  /** One rule for the process's liveness: the thread holds it open exactly while a send or a loop report is awaited. */
  function holdOpenWhileAwaited(): void {
    if (awaited.count > 0) worker?.ref();
    else worker?.unref();
  }

  function send(adapter: number, bodyJson: string, options: SendOptions): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const thread = running();
      const id = sends++;
      awaited.send(id, { resolve, reject, timing: options.timing });
      holdOpenWhileAwaited();
      thread.postMessage({
        kind: "send",
        id,
        adapter,
        json: bodyJson,
        timeoutMs: options.timeoutMs,
        attempt: options.attempt,
        wire: options.wire === true,
      } satisfies ToThread);
    });
  }

  return {
    warm(providers, burst) {
      if (providers.length > 0) running().postMessage({ kind: "preload", providers: [...providers], rehearse: burst >= REHEARSED_BURST } satisfies ToThread);
    },
    watchLoop() {
      const thread = worker;
      if (thread === null) return null;
      thread.postMessage({ kind: "watch-loop" } satisfies ToThread);
      return {
        stop: () =>
          new Promise<LoopDelay | null>((resolve) => {
            // The same thread, or none: a thread started since never watched this window.
            if (worker !== thread) return resolve(null);
            awaited.loopReport(resolve);
            holdOpenWhileAwaited();
            thread.postMessage({ kind: "report-loop" } satisfies ToThread);
          }),
      };
    },
    adopt(adapter, setup) {
      const index = setups.push(setup) - 1;
      return { ...adapter, send: (bodyJson, options) => send(index, bodyJson, options) };
    },
  };
}

/** What the client awaits from the thread: its sends in flight, by id, and its loop reports, in the order asked (the thread answers in order). */
class AwaitedAnswers {
  private readonly sends = new Map<number, Waiting>();
  private readonly loopReports: ((loop: LoopDelay | null) => void)[] = [];

  get count(): number {
    return this.sends.size + this.loopReports.length;
  }

  send(id: number, waiting: Waiting): void {
    this.sends.set(id, waiting);
  }

  loopReport(report: (loop: LoopDelay | null) => void): void {
    this.loopReports.push(report);
  }

  /** Answers what a message of the thread answers. */
  received(m: FromThread): void {
    if (m.kind === "loop") return this.loopReports.shift()?.(m.loop);
    const w = this.sends.get(m.id);
    if (w === undefined) return;
    this.sends.delete(m.id);
    settle(w, m);
  }

  /** The thread stopped: every send in flight fails, and every loop report asked is of none. */
  lose(why: string): void {
    const lost = [...this.sends.values()];
    this.sends.clear();
    for (const w of lost) w.reject(new Error(`the HTTP thread stopped: ${why}`));
    for (const report of this.loopReports.splice(0)) report(null);
  }
}

/** Ends an awaited send as the thread says it ended: its reply, its transport failure, or what was thrown. */
function settle(w: Waiting, m: SendEnd): void {
  if (w.timing) Object.assign(w.timing, { startedAt: m.startedAt, endedAt: m.endedAt });
  if (m.reply) return w.resolve(m.reply);
  if (m.failure) return w.reject(new TransportError(m.failure.errorClass, m.failure.message, m.failure.httpStatus, m.failure.retryAfterMs));
  w.reject(Object.assign(new Error(m.thrown?.message ?? "no answer from the HTTP thread"), { name: m.thrown?.name ?? "Error" }));
}

let shared: SendThread | undefined;

/** The process's one HTTP thread: every sweep of the process sends through it, so each SDK loads once. */
export const sharedSendThread = (): SendThread => (shared ??= createSendThread());
