// The worker thread of thread.ts: loads the SDKs and rehearses their send paths while the
// sweep loads its corpus, builds each role's adapter from its setup, and makes the sends it is
// handed, answering each with its outcome and the exchange's timestamps.
import { parentPort } from "node:worker_threads";
import { monitorLoopDelay, type LoopMonitor, type LoopDelay } from "../../event-loop.ts";
import { TransportError, type ProviderAdapter, type TransportTiming } from "../adapter.ts";
import type { LiveProvider } from "../registry.ts";
import { createLiveAdapter, preloadLive } from "../adapters.ts";
import { onePerTurn } from "./one-per-turn.ts";
import { rehearse } from "./rehearsal.ts";
import type { FromThread, SendEnd, ToThread } from "./thread.ts";

const port = parentPort!;
const now = () => performance.timeOrigin + performance.now();
const adapters: Promise<ProviderAdapter>[] = [];
let loop: LoopMonitor<LoopDelay> | null = null;

/** Sends start one per turn of the loop: a sweep's first wave (every slot at once) reaches the thread as one burst. */
const enqueue = onePerTurn((m: Extract<ToThread, { kind: "send" }>) => void send(m));
/** Whether a real send has come: the rehearsal gives way to it. */
let sending = false;
/** Each provider's send path is rehearsed once per thread: a process that runs sweep after sweep keeps its compiled code. */
const rehearsed = new Set<LiveProvider>();

/** Loads the providers' SDKs, then (for a large first burst) rehearses their send paths until the first real send comes. */
async function preload(providers: LiveProvider[], rehearsal: boolean): Promise<void> {
  await Promise.all(providers.map(preloadLive));
  if (!rehearsal) return;
  for (const provider of providers) {
    if (rehearsed.has(provider)) continue;
    rehearsed.add(provider);
    await rehearse(provider, { done: () => sending });
  }
}

port.on("message", (m: ToThread) => {
  if (m.kind === "send") {
    sending = true;
    return enqueue(m);
  }
  if (m.kind === "watch-loop") {
    loop?.stop();
    return void (loop = monitorLoopDelay());
  }
  if (m.kind === "report-loop") {
    port.postMessage({ kind: "loop", loop: loop?.stop() ?? null } satisfies FromThread);
    return void (loop = null);
  }
  // A load failure is left to the first send, which loads again and reports it; a failed rehearsal only leaves the code cold.
  if (m.kind === "preload") return void preload(m.providers, m.rehearse).catch(() => undefined);
  const adapter = createLiveAdapter(m.setup.provider, m.setup.role, { apiKey: m.setup.apiKey, now });
  // A load failure is the send's to report.
  adapter.catch(() => undefined);
  adapters[m.adapter] = adapter;
});

async function send(m: Extract<ToThread, { kind: "send" }>): Promise<void> {
  const timing: TransportTiming = { startedAt: null, endedAt: null };
  const out: SendEnd = { kind: "sent", id: m.id, startedAt: null, endedAt: null };
  try {
    out.reply = await (await adapters[m.adapter]!).send(m.json, { timeoutMs: m.timeoutMs, attempt: m.attempt, timing, wire: m.wire });
  } catch (e) {
    if (e instanceof TransportError) out.failure = { errorClass: e.errorClass, message: e.message, httpStatus: e.httpStatus, retryAfterMs: e.retryAfterMs };
    else out.thrown = e instanceof Error ? { name: e.name, message: e.message } : { name: "Error", message: String(e) };
  }
  out.startedAt = timing.startedAt;
  out.endedAt = timing.endedAt;
  port.postMessage(out);
}
