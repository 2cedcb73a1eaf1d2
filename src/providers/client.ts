import type { z } from "zod";
import { canonicalJson } from "../canonical.ts";
import { ROLES, type CallRecord, type Role, type TransportAttempt, type Usage } from "../formats/records.ts";
import { TransportError, type Conversation, type ProviderAdapter, type Reply, type TransportErrorClass, type TransportTiming } from "./adapter.ts";
import { apiKeyFor, type Env } from "./api-keys.ts";
import { createDirectoryCache, type ReplyStore } from "./cache.ts";
import { ClientConfigSchema, type ClientConfig, type ResolvedClientConfig, type RoleConfig } from "./config.ts";
import { decisionContext, modelMismatch, replyCacheKey, requestHash } from "./context.ts";
import { clientCredentials } from "./credentials.ts";
import { estimateCost, isBilled } from "./prices.ts";
import { createReplayStore, ReplayMissError, replyOf, type RecordedTrials, type ReplayStore } from "./replay.ts";
import type { AnsweredCalls, JournaledCall } from "./answered.ts";
import { createInProcessAdapter, createLiveAdapter } from "./adapters.ts";
import { isLiveProvider, type WireProvider } from "./registry.ts";
import { retryDelayMs } from "./retry.ts";
import type { SendThread } from "./send-thread/thread.ts";
import { feedbackPrompt, parseStructured } from "./structured-output.ts";
import { Throttle } from "./throttle.ts";
import type { AttemptEvent, ForwardRequest, ForwardResult, LlmRequest, ModelClient, SendGuard, StructuredResult, WireForwarder } from "./types.ts";
import { maskText, maskValue, registerSecret } from "../secrets.ts";

export { ClientConfigSchema, RoleConfigSchema, type ClientConfig, type RoleConfig } from "./config.ts";

/** Everything with a side effect the client needs, injectable so tests run on a fake clock. */
export interface ClientDeps {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Uniform [0, 1) for retry jitter. */
  random?: () => number;
  /** Where API keys come from; defaults to process.env. */
  env?: Env;
  /**
   * Told of every call that sent something now (not one answered from a replay, the cache or the
   * call journal), with its trial key and, when it got no answer, its transport failure's message:
   * what the call journal keeps for a resume.
   */
  onCall?: (record: CallRecord, trialKey: string | null, failure: string | null) => void;
  /** Calls earlier sessions of a resumed run already made for trials they did not finish: answered from here first. */
  answered?: AnsweredCalls;
  /** Asked before every send, with the request's trial key (null without one); "budget_exceeded" refuses it and the call returns that outcome. */
  beforeCall?: (role: Role, trialKey: string | null) => "ok" | "budget_exceeded";
  /** Told of every send as it leaves and as it returns, before the call record exists (the spend journal), with the request's trial key. */
  onAttempt?: (event: AttemptEvent, trialKey: string | null) => void;
  /** The recorded trials of a run a role replays (`replay.runDir`); needed only when one does. */
  recordedTrials?: (runDir: string) => RecordedTrials;
  /** Where HTTP sends are made: on this thread by default; on a thread of their own with one (a sweep's). */
  sendThread?: SendThread;
}

interface RoleRuntime {
  role: Role;
  config: RoleConfig;
  /** The provider whose wire format the role speaks (a replayed role: the recorded run's). */
  wire: WireProvider;
  /** Resolves once the adapter (and, for a live provider, its SDK) is loaded. */
  adapter: Promise<ProviderAdapter>;
  replay: { store: ReplayStore; fallThrough: boolean; runDir: string } | null;
  throttle: Throttle;
  /** Index into adapter.formats; moves forward (for this role, for good) when a server rejects a format. */
  formatIndex: number;
}

/** How one exchange ended: an answer, a transport failure, a budget refusal, or a replay that has no answer for it. */
type ExchangeEnd =
  { kind: "reply"; reply: Reply } | { kind: "failed"; failure: TransportError } | { kind: "refused" } | { kind: "missed"; miss: ReplayMissError };

/** A wire body ready to send: its canonical text (what an HTTP adapter sends) and its request_sha256. */
interface Outgoing {
  body: Record<string, unknown>;
  bodyJson: string;
  key: string;
}

/** Who makes an exchange: the coordinates every send is reported and keyed with. */
interface Caller {
  role: Role;
  itemId: string;
  trial: number;
  round: number;
  trialKey: string | null;
  /** The request the harness built (the sim reads its hints); none for a forwarded body. */
  request?: LlmRequest;
}

type Exchange = ExchangeEnd & {
  /** The wire body last sent (after any response-format fallback) and its request_sha256. */
  body: Record<string, unknown>;
  key: string;
  attempts: TransportAttempt[];
  cached: boolean;
  latencyMs: number;
  /** Answered from the call journal: the earlier session's exchange, nothing sent now. */
  resumed?: boolean;
};

/** Wall-clock milliseconds with sub-millisecond resolution (latencies are a few ms apart at high concurrency). */
const preciseNow = () => performance.timeOrigin + performance.now();

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Per-send timeout when the role sets none: long enough for a slow model, short enough to retry a hung one. */
const DEFAULT_TIMEOUT_MS = 120_000;

/** What every step of a client reads: its resolved config and its side effects, defaults filled in. */
interface ClientContext {
  config: ResolvedClientConfig;
  deps: ClientDeps;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  env: Env;
  cache: ReplyStore | null;
  /** Numbers the sends made by this client, so a send's return can be paired with it. */
  nextSendId: () => number;
}

export function createModelClient(input: ClientConfig, deps: ClientDeps = {}): ModelClient & WireForwarder {
  const ctx = clientContext(ClientConfigSchema.parse(input), deps);
  // Every credential this client sends is masked from everything the process writes or prints (src/secrets.ts).
  for (const secret of clientCredentials(ctx.config, ctx.env)) registerSecret(secret);
  const runtimes = roleRuntimes(ctx);
  return {
    structured(request, validator, guard) {
      const rt = runtimes[request.role];
      return rt.throttle.run(() => runStructured(ctx, rt, request, validator, guard));
    },
    forward(request) {
      const rt = runtimes[request.role];
      return rt.throttle.run(() => runForward(ctx, rt, request));
    },
  };
}

function clientContext(config: ResolvedClientConfig, deps: ClientDeps): ClientContext {
  let sends = 0;
  return {
    config,
    deps,
    now: deps.now ?? preciseNow,
    sleep: deps.sleep ?? realSleep,
    random: deps.random ?? Math.random,
    env: deps.env ?? process.env,
    cache: config.cache?.enabled ? createDirectoryCache(config.cache.dir) : null,
    nextSendId: () => sends++,
  };
}

/** Each role's adapter, replay store and throttle; adapters start loading now. */
function roleRuntimes(ctx: ClientContext): Record<Role, RoleRuntime> {
  const { config, now, sleep } = ctx;
  const replayStore = replayStores(ctx.deps);
  return Object.fromEntries(
    ROLES.map((role): [Role, RoleRuntime] => {
      const rc = config[role];
      const replay = rc.replay ? { store: replayStore(rc.replay.runDir), fallThrough: rc.replay.fallThrough, runDir: rc.replay.runDir } : null;
      const wire = rc.replay ? rc.replay.as : (rc.provider as WireProvider);
      const adapter = adapterFor(ctx, wire, rc);
      // A load failure surfaces at the role's first call; a role never called must not crash the process.
      adapter.catch(() => undefined);
      return [role, { role, config: rc, wire, adapter, replay, throttle: new Throttle(rc.concurrency, rc.rpm, { now, sleep }), formatIndex: 0 }];
    }),
  ) as Record<Role, RoleRuntime>;
}

async function adapterFor(ctx: ClientContext, provider: WireProvider, role: RoleConfig): Promise<ProviderAdapter> {
  const { env, now, sleep, deps } = ctx;
  if (!isLiveProvider(provider)) return createInProcessAdapter(provider, role, { sleep, settings: ctx.config.sim });
  const apiKey = apiKeyFor(provider, env);
  const adapter = await createLiveAdapter(provider, role, { apiKey, now });
  return deps.sendThread ? deps.sendThread.adopt(adapter, { provider, role, apiKey }) : adapter;
}

/** Each recorded run is read once, though both roles replay it; each role takes from its own store. */
function replayStores(deps: ClientDeps): (runDir: string) => ReplayStore {
  const recorded = new Map<string, RecordedTrials>();
  return (runDir) => {
    if (!deps.recordedTrials) throw new Error(`replay of ${runDir} needs its recorded trials (ClientDeps.recordedTrials)`);
    let trials = recorded.get(runDir);
    if (trials === undefined) recorded.set(runDir, (trials = deps.recordedTrials(runDir)));
    return createReplayStore(trials);
  };
}

/** The exchange an earlier session of the run had for this request, as it had it: its sends, their time, its answer or failure. */
function fromJournal({ call, failure }: JournaledCall, body: Record<string, unknown>, key: string): Exchange {
  const base = { body, key, attempts: [...call.transport_attempts], cached: call.cached, latencyMs: call.latency_ms, resumed: true };
  const reply = replyOf(call);
  if (reply === undefined)
    return { ...base, kind: "failed", failure: new TransportError((call.error_class ?? "unexpected") as TransportErrorClass, failure ?? "", call.http_status) };
  return { ...base, kind: "reply", reply };
}

/** An exchange's end with the body last sent and its sends. */
function exchangeOf(body: Record<string, unknown>, key: string, attempts: TransportAttempt[], end: ExchangeEnd, cached = false): Exchange {
  // Object.assign rather than a spread followed by these members, which V8 builds on its slow path.
  return Object.assign(
    {
      body,
      key,
      attempts,
      cached,
      // Time spent with the provider: the sends themselves, not backoff, throttling or the harness.
      latencyMs: attempts.reduce((ms, a) => ms + a.latency_ms, 0),
    },
    end,
  );
}

/** The exchange the call journal (a resumed trial's earlier answers), replay or cache already holds, if any; a replay that cannot fall through ends in a miss. */
function answeredWithoutSending(ctx: ClientContext, rt: RoleRuntime, adapter: ProviderAdapter, caller: Caller, { body, key }: Outgoing): Exchange | null {
  const earlier = caller.trialKey === null ? undefined : ctx.deps.answered?.take(caller.trialKey, key);
  if (earlier) return fromJournal(earlier, body, key);
  const stored = rt.replay?.store.take(key) ?? ctx.cache?.get(replyCacheKey(adapter, key));
  if (stored) return exchangeOf(body, key, [], { kind: "reply", reply: stored }, true);
  if (rt.replay && !rt.replay.fallThrough) {
    return exchangeOf(body, key, [], { kind: "missed", miss: new ReplayMissError(rt.replay.runDir, key, caller.role, caller.itemId, caller.trial) });
  }
  return null;
}

/**
 * Send one wire request with transport retries; the call journal, replay and cache answer first.
 * `admit` is asked before every send; `refresh` renders the request again in the role's next
 * structured-output format when a server rejects the current one (null: the body is the caller's,
 * sent as it is).
 */
async function exchange(
  ctx: ClientContext,
  rt: RoleRuntime,
  adapter: ProviderAdapter,
  caller: Caller,
  attempt: number,
  first: Outgoing,
  refresh: (() => Outgoing) | null,
  admit: (sending: readonly TransportAttempt[]) => boolean,
  wire = false,
): Promise<Exchange> {
  const answered = answeredWithoutSending(ctx, rt, adapter, caller, first);
  if (answered) return answered;

  const { deps, now, config } = ctx;
  let { body, bodyJson, key } = first;
  const attempts: TransportAttempt[] = [];
  const done = (end: ExchangeEnd) => exchangeOf(body, key, attempts, end);
  const { wire: provider } = rt;
  const { model } = rt.config;
  const { role, round, trialKey } = caller;
  for (let retries = 0; ;) {
    if (!admit(attempts) || deps.beforeCall?.(role, trialKey) === "budget_exceeded") return done({ kind: "refused" });
    await rt.throttle.acquire();
    const timing: TransportTiming = { startedAt: null, endedAt: null };
    const sentAt = now();
    // An HTTP adapter times the exchange itself; otherwise (the sim) the send is the transport.
    const latency = () => (timing.startedAt !== null && timing.endedAt !== null ? timing.endedAt - timing.startedAt : now() - sentAt);
    const id = ctx.nextSendId();
    deps.onAttempt?.({ phase: "sent", id, role, provider, model, round, attempt, index: attempts.length }, trialKey);
    const returned = (a: TransportAttempt, usage: Usage | null) => {
      attempts.push(a);
      deps.onAttempt?.(
        {
          phase: "returned",
          id,
          role,
          outcome: a.outcome,
          error_class: a.error_class,
          http_status: a.http_status,
          usage,
          cost_usd: attemptCost(provider, model, a, usage),
        },
        trialKey,
      );
    };
    let reply: Reply;
    try {
      reply = await adapter.send(bodyJson, { timeoutMs: rt.config.timeoutMs ?? DEFAULT_TIMEOUT_MS, request: caller.request, attempt, timing, wire });
    } catch (e) {
      const failure = asTransportError(e);
      returned({ index: attempts.length, latency_ms: latency(), outcome: "error", error_class: failure.errorClass, http_status: failure.httpStatus }, null);
      if (failure.errorClass === "format_unsupported" && refresh !== null && rt.formatIndex < adapter.formats.length - 1) {
        // The server rejected the structured-output mechanism, not the request: fall back and resend now.
        rt.formatIndex += 1;
        ({ body, bodyJson, key } = refresh());
        continue;
      }
      const delay = failure.retryable && retries < config.maxRetries ? retryDelayMs(retries, failure.retryAfterMs, ctx.random()) : null;
      if (delay === null) return done({ kind: "failed", failure });
      await ctx.sleep(delay);
      retries += 1;
      continue;
    }
    returned({ index: attempts.length, latency_ms: latency(), outcome: "ok", error_class: null, http_status: reply.httpStatus }, reply.usage);
    // Never the wire body, which only the caller that asked for it reads (the cache masks what it keeps).
    ctx.cache?.put(replyCacheKey(adapter, key), { ...reply, raw: undefined });
    return done({ kind: "reply", reply });
  }
}

/** A throw that is no TransportError is an answer the adapter could not read: still a failed send, so the trial keeps its calls. */
function asTransportError(e: unknown): TransportError {
  return e instanceof TransportError ? e : new TransportError("unexpected", e instanceof Error ? `${e.name}: ${e.message}` : String(e));
}

/** The call record of one exchange; `outcome` and `errorClass` say how its answer was judged (a transport failure or refusal is judged here). */
function callRecord(
  adapter: ProviderAdapter,
  caller: Caller,
  attempt: number,
  ex: Exchange,
  userTemplate: string | null,
  judged: { text: string | null; outcome: CallRecord["outcome"]; errorClass: string | null; validationError: string | null },
): CallRecord {
  const context = decisionContext(adapter, ex.body, userTemplate);
  const last = ex.attempts.at(-1);
  const reply = ex.kind === "reply" ? ex.reply : null;
  // What the server says of itself may echo a credential, as its text may.
  const reported = maskValue({ model: reply?.reportedModel ?? null, system_fingerprint: reply?.fingerprint ?? null });
  return {
    role: caller.role,
    round: caller.round,
    request_sha256: ex.key,
    attempt,
    context,
    reported,
    model_mismatch: modelMismatch(context.model, reported.model),
    usage: reply?.usage ?? null,
    cost_usd: callCost(context.provider, context.model, reply, ex),
    latency_ms: ex.latencyMs,
    outcome: judged.outcome,
    error_class:
      ex.kind === "refused" ? "budget_exceeded" : ex.kind === "missed" ? "replay_miss" : (judged.errorClass ?? (reply ? null : (last?.error_class ?? null))),
    http_status: reply?.httpStatus ?? last?.http_status ?? null,
    transport_attempts: ex.attempts,
    raw_text: judged.text,
    validation_error: judged.validationError,
    cached: ex.cached,
  };
}

/** Records a call (a refusal before anything was sent leaves nothing to record). */
function made(deps: ClientDeps, calls: CallRecord[], ex: Exchange, record: CallRecord, trialKey: string | null): void {
  if (ex.kind === "refused" && ex.attempts.length === 0) return;
  calls.push(record);
  if (ex.attempts.length > 0 && !ex.cached && !ex.resumed) deps.onCall?.(record, trialKey, ex.kind === "failed" ? maskText(ex.failure.message) : null);
}

/** Why an exchange that got no answer failed, in one line (secrets masked). */
function failureText(adapter: ProviderAdapter, role: Role, ex: Exchange & { kind: "failed" }): string {
  const f = ex.failure;
  const detail = `${f.errorClass}${f.httpStatus ? ` (HTTP ${f.httpStatus})` : ""}: ${maskText(f.message)}`;
  const where = adapter.baseUrl ? ` to ${adapter.baseUrl}` : "";
  return `${role} call${where} failed after ${ex.attempts.length} attempt(s): ${detail}`;
}

async function runStructured<T>(
  ctx: ClientContext,
  rt: RoleRuntime,
  request: LlmRequest,
  validator: z.ZodType<T>,
  guard: SendGuard | undefined,
): Promise<StructuredResult<T>> {
  const { maxOutputAttempts } = ctx.config;
  const conversation: Conversation = {
    system: request.system,
    user: request.user,
    schemaName: request.schemaName,
    schema: request.schema,
    corrections: [],
  };
  const adapter = await rt.adapter;
  const caller: Caller = {
    role: request.role,
    itemId: request.itemId,
    trial: request.trial,
    round: request.round,
    trialKey: request.trialKey ?? null,
    request,
  };
  const render = (): Outgoing => {
    const body = adapter.render(conversation, adapter.formats[rt.formatIndex]!);
    // Written once: the text the request is hashed by is the text an HTTP adapter sends.
    const bodyJson = canonicalJson(body);
    return { body, bodyJson, key: requestHash(adapter, bodyJson, request.role, request.trial) };
  };
  const calls: CallRecord[] = [];
  let lastRaw: string | null = null;
  let lastError = "";
  for (let attempt = 0; attempt < maxOutputAttempts; attempt++) {
    const ex = await exchange(ctx, rt, adapter, caller, attempt, render(), render, (sending) => guard?.({ calls, sending }) ?? true);
    // A replayed run that never made this request: the trial cannot be what was recorded.
    if (ex.kind === "missed") throw ex.miss;
    const reply = ex.kind === "reply" ? ex.reply : null;
    // Secrets are masked once, before validation: the recorded text and the value read from it carry none.
    const text = reply ? maskText(reply.text) : null;
    const parsed = text !== null ? parseStructured(text, validator, reply!.incomplete) : null;
    const record = callRecord(adapter, caller, attempt, ex, request.userTemplate, {
      text,
      outcome: parsed === null ? "error" : parsed.ok ? "ok" : "invalid_output",
      errorClass: parsed && !parsed.ok ? parsed.errorClass : null,
      validationError: parsed && !parsed.ok ? maskText(parsed.error) : null,
    });
    made(ctx.deps, calls, ex, record, caller.trialKey);
    if (ex.kind === "refused") {
      return { ok: false, outcome: "budget_exceeded", rawText: lastRaw, error: `budget exceeded before the ${request.role} call`, calls };
    }
    if (ex.kind === "failed") return { ok: false, outcome: "provider_error", rawText: lastRaw, error: failureText(adapter, request.role, ex), calls };
    if (parsed?.ok) return { ok: true, value: parsed.value, rawText: record.raw_text ?? "", calls };
    if (parsed) {
      lastRaw = record.raw_text;
      lastError = parsed.error;
      conversation.corrections.push({ rawText: ex.reply.text, feedback: feedbackPrompt(parsed.error) });
    }
  }
  return {
    ok: false,
    outcome: "invalid_output",
    rawText: lastRaw,
    error: `${request.role} output invalid after ${maxOutputAttempts} attempt(s): ${maskText(lastError)}`,
    calls,
  };
}

/**
 * One wire body another program built (an engine behind the recording proxy), sent as it is with
 * the role's transport retries, replay, cache, budget and spend journal. Its answer is not judged
 * (what the body asks for is the sender's business): an answer is `ok`, whatever it says.
 */
async function runForward(ctx: ClientContext, rt: RoleRuntime, request: ForwardRequest): Promise<ForwardResult> {
  const adapter = await rt.adapter;
  if (rt.wire !== request.wire) {
    throw new Error(`the ${request.role} is served as ${rt.wire}; a ${request.wire} request cannot be forwarded to it`);
  }
  const bodyJson = canonicalJson(request.body);
  const key = requestHash(adapter, request.keyText ?? bodyJson, request.role, request.trial);
  const caller: Caller = { role: request.role, itemId: request.itemId, trial: request.trial, round: request.round, trialKey: request.trialKey };
  const ex = await exchange(ctx, rt, adapter, caller, request.attempt, { body: request.body, bodyJson, key }, null, () => true, true);
  const reply = ex.kind === "reply" ? ex.reply : null;
  const text = reply ? maskText(reply.text) : null;
  const record = callRecord(adapter, caller, request.attempt, ex, null, {
    text,
    outcome: reply ? "ok" : "error",
    errorClass: null,
    validationError: null,
  });
  made(ctx.deps, [], ex, record, caller.trialKey);
  // The answer as the provider sent it, masked as the records are; a stored answer has only its parts.
  const wire = reply?.raw === undefined ? null : maskValue(reply.raw);
  return { record, reply: reply && { ...reply, text: text!, raw: wire ?? undefined }, failure: forwardFailure(adapter, request.role, ex) };
}

/** Why a forwarded exchange got no answer, as the proxy reports it (null when it got one). */
function forwardFailure(adapter: ProviderAdapter, role: Role, ex: Exchange): ForwardResult["failure"] {
  switch (ex.kind) {
    case "failed":
      return { errorClass: ex.failure.errorClass, httpStatus: ex.failure.httpStatus, message: failureText(adapter, role, ex) };
    case "refused":
      return { errorClass: "budget_exceeded", httpStatus: null, message: `budget exceeded before the ${role} call` };
    case "missed":
      return { errorClass: "replay_miss", httpStatus: null, message: ex.miss.message };
    case "reply":
      return null;
  }
}

/**
 * USD for one send. The sim costs nothing, whatever its model is called. An answer is priced from
 * its usage (null without usage, or for a model the price table does not know). A failure with an
 * error status (4xx, 5xx) was refused before anything was generated (0), and a connection that was
 * never opened (refused, no such host: `unreachable`) sent nothing (0); a timeout, a reset, a cut
 * body, or a failure sent with a success status (a gateway's error envelope, a page that is not the
 * API) may have been billed, so its cost is unknown (null).
 */
export function attemptCost(provider: string, model: string, attempt: TransportAttempt, usage: Usage | null): number | null {
  if (!isBilled(provider)) return 0;
  if (attempt.outcome === "ok") return usage ? estimateCost(model, usage.input_tokens, usage.output_tokens) : null;
  // An error status was answered without the work; a connection never opened sent nothing.
  return (attempt.http_status !== null && attempt.http_status >= 400) || attempt.error_class === "unreachable" ? 0 : null;
}

/** What a cached or replayed answer is priced as: a send that answered (nothing was sent, so no time or status). */
const STORED_ANSWER: TransportAttempt = { index: 0, latency_ms: 0, outcome: "ok", error_class: null, http_status: null };

/**
 * USD for one call: the sum over its sends (null when any is unknown). A cached or replayed answer
 * was not bought again; it carries the price of its recorded usage, as the send that bought it did.
 */
function callCost(provider: string, model: string, reply: Reply | null, ex: Pick<Exchange, "attempts" | "cached">): number | null {
  if (ex.cached) return attemptCost(provider, model, STORED_ANSWER, reply?.usage ?? null);
  let total = 0;
  for (const a of ex.attempts) {
    const cost = attemptCost(provider, model, a, a.outcome === "ok" ? (reply?.usage ?? null) : null);
    if (cost === null) return null;
    total += cost;
  }
  return total;
}
