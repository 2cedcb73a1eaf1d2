import type { z } from "zod";
import { ROLES, type CallRecord, type Role, type TransportAttempt } from "../formats/records.ts";
import { TransportError, type Conversation, type ProviderAdapter, type Reply, type TransportTiming } from "./adapter.ts";
import { apiKeyFor, API_KEY_ENV, type Env } from "./api-keys.ts";
import { createDirectoryCache, type ReplyStore } from "./cache.ts";
import { ClientConfigSchema, type ClientConfig, type ResolvedClientConfig, type RoleConfig, type WireProvider } from "./config.ts";
import { decisionContext, modelMismatch, requestHash } from "./context.ts";
import { estimateCost } from "./prices.ts";
import { loadReplayStore, ReplayMissError, type ReplayStore } from "./replay.ts";
import { retryDelayMs } from "./retry.ts";
import { createSimAdapter } from "./sim/adapter.ts";
import { DEFAULT_SIM_PROFILE } from "./sim/profile.ts";
import { feedbackPrompt, parseStructured } from "./structured-output.ts";
import { Throttle } from "./throttle.ts";
import type { LlmRequest, ModelClient, SendGuard, StructuredResult } from "./types.ts";

export { ClientConfigSchema, RoleConfigSchema, type ClientConfig, type RoleConfig } from "./config.ts";

/** Everything with a side effect the client needs, injectable so tests run on a fake clock. */
export interface ClientDeps {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Uniform [0, 1) for retry jitter. */
  random?: () => number;
  /** Where API keys come from; defaults to process.env. */
  env?: Env;
  /** Called with every call record as it is made (progress and spend). */
  onCall?: (record: CallRecord) => void;
  /** Asked before every send; "budget_exceeded" refuses it and the call returns that outcome. */
  beforeCall?: (role: Role) => "ok" | "budget_exceeded";
}

interface RoleRuntime {
  role: Role;
  config: RoleConfig;
  /** Resolves once the adapter (and, for a live provider, its SDK) is loaded. */
  adapter: Promise<ProviderAdapter>;
  replay: { store: ReplayStore; fallThrough: boolean; runDir: string } | null;
  throttle: Throttle;
  /** Index into adapter.formats; moves forward (for this role, for good) when a server rejects a format. */
  formatIndex: number;
}

/** How one structured-output attempt's exchange ended: an answer, a transport failure, or a budget refusal. */
type ExchangeEnd = { kind: "reply"; reply: Reply } | { kind: "failed"; failure: TransportError } | { kind: "refused" };

type Exchange = ExchangeEnd & {
  /** The wire body last sent (after any response-format fallback) and its request_sha256. */
  body: Record<string, unknown>;
  key: string;
  attempts: TransportAttempt[];
  cached: boolean;
  latencyMs: number;
};

/** Wall-clock milliseconds with sub-millisecond resolution (latencies are a few ms apart at high concurrency). */
const preciseNow = () => performance.timeOrigin + performance.now();

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Per-send timeout when the role sets none: long enough for a slow model, short enough to retry a hung one. */
export const DEFAULT_TIMEOUT_MS = 120_000;

/** Secrets are masked from any text the client passes on; header values shorter than this are not secrets. */
const MIN_SECRET_LENGTH = 8;

export function createModelClient(input: ClientConfig, deps: ClientDeps = {}): ModelClient {
  const config: ResolvedClientConfig = ClientConfigSchema.parse(input);
  const now = deps.now ?? preciseNow;
  const sleep = deps.sleep ?? realSleep;
  const random = deps.random ?? Math.random;
  const env = deps.env ?? process.env;
  const cache: ReplyStore | null = config.cache?.enabled ? createDirectoryCache(config.cache.dir) : null;

  const secrets = [
    ...Object.values(API_KEY_ENV).map((name) => env[name]),
    ...ROLES.flatMap((r) => Object.values(config[r].headers ?? {})),
  ].filter((s): s is string => typeof s === "string" && s.length >= MIN_SECRET_LENGTH);
  const redact = (text: string) => secrets.reduce((t, s) => t.split(s).join("[redacted]"), text);

  /** The SDKs load only for a role that uses them: a sim or replay run never imports one. */
  async function adapterFor(provider: WireProvider, role: RoleConfig): Promise<ProviderAdapter> {
    switch (provider) {
      case "openai":
        return (await import("./openai.ts")).createOpenAiAdapter(role, { apiKey: apiKeyFor("openai", env), now });
      case "anthropic":
        return (await import("./anthropic.ts")).createAnthropicAdapter(role, { apiKey: apiKeyFor("anthropic", env), now });
      case "sim":
        return createSimAdapter(role, {
          profile: config.sim?.profile ?? DEFAULT_SIM_PROFILE,
          runSeed: config.sim?.runSeed ?? 0,
          sleep,
        });
    }
  }

  const runtimes = Object.fromEntries(
    ROLES.map((role): [Role, RoleRuntime] => {
      const rc = config[role];
      const replay = rc.replay ? { store: loadReplayStore(rc.replay.runDir), fallThrough: rc.replay.fallThrough, runDir: rc.replay.runDir } : null;
      const wireProvider = rc.replay ? rc.replay.as : (rc.provider as WireProvider);
      const adapter = adapterFor(wireProvider, rc);
      // A load failure surfaces at the role's first call; a role never called must not crash the process.
      adapter.catch(() => undefined);
      return [
        role,
        { role, config: rc, adapter, replay, throttle: new Throttle(rc.concurrency, rc.rpm, { now, sleep }), formatIndex: 0 },
      ];
    }),
  ) as Record<Role, RoleRuntime>;

  /** Send one wire request with transport retries; replay and cache answer first. `admit` is asked before every send. */
  async function exchange(
    rt: RoleRuntime,
    adapter: ProviderAdapter,
    request: LlmRequest,
    conversation: Conversation,
    attempt: number,
    admit: (sending: readonly TransportAttempt[]) => boolean,
  ): Promise<Exchange> {
    const render = () => adapter.render(conversation, adapter.formats[rt.formatIndex]!);
    let body = render();
    let key = requestHash(adapter, body, request.role, request.trial);
    const stored = rt.replay?.store.take(key) ?? cache?.get(key);
    if (stored) return { kind: "reply", reply: stored, body, key, attempts: [], cached: true, latencyMs: 0 };
    if (rt.replay && !rt.replay.fallThrough) throw new ReplayMissError(rt.replay.runDir, key, request.role, request.itemId, request.trial);

    const attempts: TransportAttempt[] = [];
    const done = (end: ExchangeEnd): Exchange => ({
      ...end,
      body,
      key,
      attempts,
      cached: false,
      // Time spent with the provider: the sends themselves, not backoff, throttling or the harness.
      latencyMs: attempts.reduce((ms, a) => ms + a.latency_ms, 0),
    });
    for (let retries = 0; ; ) {
      if (!admit(attempts) || deps.beforeCall?.(request.role) === "budget_exceeded") return done({ kind: "refused" });
      await rt.throttle.acquire();
      const timing: TransportTiming = { startedAt: null, endedAt: null };
      const sentAt = now();
      // An HTTP adapter times the exchange itself; otherwise (the sim) the send is the transport.
      const latency = () => (timing.startedAt !== null && timing.endedAt !== null ? timing.endedAt - timing.startedAt : now() - sentAt);
      try {
        const reply = await adapter.send(body, { timeoutMs: rt.config.timeoutMs ?? DEFAULT_TIMEOUT_MS, request, attempt, timing });
        attempts.push({ index: attempts.length, latency_ms: latency(), outcome: "ok", error_class: null, http_status: reply.httpStatus });
        cache?.put(key, reply);
        return done({ kind: "reply", reply });
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
        attempts.push({ index: attempts.length, latency_ms: latency(), outcome: "error", error_class: e.errorClass, http_status: e.httpStatus });
        if (e.errorClass === "format_unsupported" && rt.formatIndex < adapter.formats.length - 1) {
          // The server rejected the structured-output mechanism, not the request: fall back and resend now.
          rt.formatIndex += 1;
          body = render();
          key = requestHash(adapter, body, request.role, request.trial);
          continue;
        }
        if (!e.retryable || retries >= config.maxRetries) return done({ kind: "failed", failure: e });
        await sleep(retryDelayMs(retries, e.retryAfterMs, random()));
        retries += 1;
      }
    }
  }

  async function runStructured<T>(rt: RoleRuntime, request: LlmRequest, validator: z.ZodType<T>, guard: SendGuard | undefined): Promise<StructuredResult<T>> {
    const conversation: Conversation = {
      system: request.system,
      user: request.user,
      schemaName: request.schemaName,
      schema: request.schema,
      corrections: [],
    };
    const adapter = await rt.adapter;
    const calls: CallRecord[] = [];
    let lastRaw: string | null = null;
    let lastError = "";
    for (let attempt = 0; attempt < config.maxOutputAttempts; attempt++) {
      const ex = await exchange(rt, adapter, request, conversation, attempt, (sending) => guard?.({ calls, sending }) ?? true);
      const context = decisionContext(adapter, ex.body, request.userTemplate);
      const last = ex.attempts.at(-1);
      const reply = ex.kind === "reply" ? ex.reply : null;
      const parsed = reply ? parseStructured(reply.text, validator) : null;
      const record: CallRecord = {
        role: request.role,
        round: request.round,
        request_sha256: ex.key,
        attempt,
        context,
        reported: { model: reply?.reportedModel ?? null, system_fingerprint: reply?.fingerprint ?? null },
        model_mismatch: modelMismatch(context.model, reply?.reportedModel ?? null),
        usage: reply?.usage ?? null,
        cost_usd: callCost(context.provider, context.model, reply, ex.attempts),
        latency_ms: ex.latencyMs,
        outcome: parsed === null ? "error" : parsed.ok ? "ok" : "invalid_output",
        error_class: ex.kind === "refused" ? "budget_exceeded" : parsed === null ? (last?.error_class ?? null) : parsed.ok ? null : parsed.errorClass,
        http_status: reply?.httpStatus ?? last?.http_status ?? null,
        transport_attempts: ex.attempts,
        raw_text: reply ? redact(reply.text) : null,
        validation_error: parsed && !parsed.ok ? redact(parsed.error) : null,
        cached: ex.cached,
      };
      // A refusal before anything was sent leaves nothing to record.
      if (ex.kind !== "refused" || ex.attempts.length > 0) {
        calls.push(record);
        deps.onCall?.(record);
      }
      if (ex.kind === "refused") {
        return { ok: false, outcome: "budget_exceeded", rawText: lastRaw, error: `budget exceeded before the ${request.role} call`, calls };
      }
      if (ex.kind === "failed") {
        const f = ex.failure;
        const detail = `${f.errorClass}${f.httpStatus ? ` (HTTP ${f.httpStatus})` : ""}: ${redact(f.message)}`;
        const where = adapter.baseUrl ? ` to ${adapter.baseUrl}` : "";
        return { ok: false, outcome: "provider_error", rawText: lastRaw, error: `${request.role} call${where} failed after ${ex.attempts.length} attempt(s): ${detail}`, calls };
      }
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
      error: `${request.role} output invalid after ${config.maxOutputAttempts} attempt(s): ${redact(lastError)}`,
      calls,
    };
  }

  return {
    structured(request, validator, guard) {
      const rt = runtimes[request.role];
      return rt.throttle.run(() => runStructured(rt, request, validator, guard));
    },
  };
}

/**
 * USD for one call. The sim costs nothing, whatever its model is called. With usage: the price
 * table's figure (null for an unknown model). Without: 0 only when every send was refused with an
 * HTTP status (nothing was generated); a timeout or a reset may have been billed, so its cost is
 * unknown (null).
 */
function callCost(provider: string, model: string, reply: Reply | null, attempts: TransportAttempt[]): number | null {
  if (provider === "sim") return 0;
  if (reply?.usage) return estimateCost(model, reply.usage.input_tokens, reply.usage.output_tokens);
  if (reply) return null;
  return attempts.length > 0 && attempts.every((a) => a.http_status !== null) ? 0 : null;
}
