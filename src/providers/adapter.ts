import type { DecisionContext, Role, Usage } from "../formats/records.ts";
import type { RoleSettings } from "./role-settings.ts";

export type FormatKind = DecisionContext["response_format"];

/** What the client asks of a provider: the prompt plus every correction made so far. */
export interface Conversation {
  system: string;
  user: string;
  schemaName: string;
  schema: Record<string, unknown>;
  /** Earlier answers that failed validation, each with the error fed back to the model. */
  corrections: { rawText: string; feedback: string }[];
}

/** The request-side facts the decision context reads back from a wire request (docs/design.md §7). */
export interface WireFacts {
  model: string;
  temperature: number | null;
  top_p: number | null;
  seed: number | null;
  max_tokens: number | null;
  response_format: FormatKind;
  /** System text as sent: system/developer messages or Anthropic `system`, joined with a newline. */
  systemText: string;
  /** The rendered user prompt (the first user message). */
  userPrompt: string;
  /** The bare JSON schema object, or the tool definitions array; null when none was sent. */
  schema: unknown;
}

/** A numeric request parameter as sent; null when the request did not set it (never a guessed default). */
function sentNumber(body: Record<string, unknown>, key: string): number | null {
  const v = body[key];
  return typeof v === "number" ? v : null;
}

/** The sampling parameters a wire body sets; the output-length cap may go by several names. */
export function sentSampling(
  body: Record<string, unknown>,
  maxTokensKeys: readonly string[] = ["max_tokens"],
): Pick<WireFacts, "temperature" | "top_p" | "seed" | "max_tokens"> {
  return {
    temperature: sentNumber(body, "temperature"),
    top_p: sentNumber(body, "top_p"),
    seed: sentNumber(body, "seed"),
    max_tokens: maxTokensKeys.map((k) => sentNumber(body, k)).find((v) => v !== null) ?? null,
  };
}

/** Token counts as a provider reported them; null unless both are counts (a server may omit usage, or part of it). */
export function reportedUsage(input: unknown, output: unknown): Usage | null {
  const count = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
  return count(input) && count(output) ? { input_tokens: input, output_tokens: output } : null;
}

/**
 * The message of an error envelope sent with a success status (some proxies and gateways answer
 * 200 with `{"error": {...}}`): a failed call, not an answer, so the model is not blamed for it.
 * Null for a body that carries an answer, or that is no envelope (then it is the model's answer,
 * however bad).
 */
function errorEnvelope(body: unknown, hasAnswer: boolean): string | null {
  if (hasAnswer || typeof body !== "object" || body === null) return null;
  const error = (body as { error?: unknown }).error;
  if (typeof error === "string" && error !== "") return error;
  if (typeof error !== "object" || error === null) return null;
  const message = (error as { message?: unknown }).message;
  return typeof message === "string" && message !== "" ? message : JSON.stringify(error);
}

/**
 * Throws the failed call that a success response stands for when it carries no API answer: an
 * error envelope, or a body that is not JSON at all (the SDKs hand over the text of any other
 * content type: a proxy's login page, a web UI at a mistaken base URL). Either is a server error,
 * retried as one; the model never answered, so it is not blamed.
 */
export function rejectNonAnswer(body: unknown, hasAnswer: boolean, status: number): void {
  if (typeof body === "string") {
    const start = body.trim().slice(0, 80).replace(/\s+/g, " ");
    throw new TransportError("server_error", `HTTP ${status} with a body that is not the API's JSON${start ? `: ${start}` : ""}`, status);
  }
  const failed = errorEnvelope(body, hasAnswer);
  if (failed !== null) throw new TransportError("server_error", `HTTP ${status} with an error body: ${failed}`, status);
}

/** A field a provider says about itself (its model, its fingerprint), kept only when it is text. */
export const reportedText = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** What a provider answered about one request. */
export interface Reply {
  text: string;
  usage: Usage | null;
  reportedModel: string | null;
  fingerprint: string | null;
  httpStatus: number | null;
  /** The response body as the provider sent it: only when the send asked for it (`SendOptions.wire`), for a caller that hands it on. */
  raw?: unknown;
  /**
   * Why the provider says it ended the answer before its end (its output limit, its context
   * window, a content filter, a refusal), as the rejection the model is told; null when it
   * finished. Such an answer is invalid output even when its text parses: a cut-off list of
   * findings would read as a complete audit.
   */
  incomplete: string | null;
}

/** The endpoint an HTTP adapter sends to: the role's baseUrl, or its provider's default. */
interface Endpoint {
  url: string;
  /** On the vendor's own host, where its API key is needed. */
  vendor: boolean;
}

/** What an HTTP adapter takes from its surroundings: the key (from the environment only), the clock and the role's endpoint. */
export interface AdapterEnv {
  apiKey: string | undefined;
  now: () => number;
  endpoint: Endpoint;
}

/** What an adapter module builds for one role; its registry entry adds the provider's id and SDK name. */
export type AdapterParts = Omit<ProviderAdapter, "provider" | "sdk">;

/** An HTTP provider's adapter module, as its registry entry loads it. */
export interface HttpAdapterModule {
  create(role: RoleSettings, env: AdapterEnv): AdapterParts;
  /** The API's smallest success answer to a structured request: what the HTTP thread's rehearsal serves (send-thread/rehearsal.ts). */
  cannedAnswer: string;
}

/** What an in-process adapter takes: the sleep it spends its simulated latency in, and its own section of the client config (only it reads it). */
export interface InProcessEnv {
  sleep: (ms: number) => Promise<void>;
  settings: unknown;
}

export type InProcessAdapterFactory = (role: RoleSettings, env: InProcessEnv) => AdapterParts;

/**
 * Who a send is for, as the engine's request (an LlmRequest) says: its coordinates and the opaque
 * extra an in-process provider (the sim) seeds its draws with and reads instead of the prose.
 */
interface RequestOrigin {
  role: Role;
  itemId: string;
  trial: number;
  round: number;
  extra?: unknown;
}

export interface SendOptions {
  timeoutMs: number;
  /** The engine's request: an in-process provider reads it; an HTTP one ignores it, and a forwarded body or a send made on another thread has none. */
  request?: RequestOrigin;
  /** Structured-output attempt index. */
  attempt: number;
  /** Filled by an HTTP adapter with the timestamps of the exchange itself (see createHttpFetch). */
  timing?: TransportTiming;
  /** Keep the response body in the reply (`Reply.raw`): a forwarded request hands it back as it came. */
  wire?: boolean;
}

/** When one send's HTTP exchange began (request handed to fetch) and ended (response body read). */
export interface TransportTiming {
  startedAt: number | null;
  endedAt: number | null;
}

/**
 * A thin provider plugin: renders a conversation into its wire body, reads the request facts back
 * from that body, and sends it once. Retries, hashing, accounting and caching live in the client.
 */
export interface ProviderAdapter {
  /** The provider's id and SDK name, as its registry entry (registry.ts) names them. */
  readonly provider: string;
  readonly sdk: string;
  readonly sdkVersion: string | null;
  /** Effective endpoint without credentials or query; null when there is none (sim). */
  readonly baseUrl: string | null;
  /** Structured-output mechanisms, preferred first; later ones are fallbacks for servers that reject earlier ones. */
  readonly formats: readonly FormatKind[];
  /**
   * What decides an answer besides the request (the sim's version, run seed and profile, which no
   * request carries); absent for a model behind an endpoint. Part of the reply cache's key, so a
   * stored answer never serves a request whose answer would be another.
   */
  readonly answerContext?: string;
  render(conversation: Conversation, format: FormatKind): Record<string, unknown>;
  describe(body: Record<string, unknown>): WireFacts;
  /** Sends the body as its canonical JSON text, the text `request_sha256` covers: an HTTP adapter sends exactly it. */
  send(bodyJson: string, options: SendOptions): Promise<Reply>;
}

export type TransportErrorClass =
  | "rate_limited"
  | "server_error"
  | "timeout"
  | "connection"
  /** The connection was never made (refused, no such host, no route): nothing was sent, so nothing can have been billed. */
  | "unreachable"
  | "format_unsupported"
  | "auth"
  | "bad_request"
  | "client_error"
  /** The send returned in a way no adapter understood (a 200 whose body is JSON `null`): not retried, maybe billed. */
  | "unexpected";

const RETRYABLE: ReadonlySet<TransportErrorClass> = new Set(["rate_limited", "server_error", "timeout", "connection", "unreachable"]);

/** Failures to open the connection, before a byte of the request could leave. */
const NEVER_CONNECTED: ReadonlySet<string> = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

/** A dropped connection, or `unreachable` when the error (or one it was caused by) says it was never opened. */
function connectionFailure(e: unknown, message: string): TransportError {
  for (let at = e, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++) {
    if (NEVER_CONNECTED.has((at as NodeJS.ErrnoException).code ?? "")) return new TransportError("unreachable", message);
  }
  return new TransportError("connection", message);
}

/** One failed send, classified so the client's single retry loop can decide. */
export class TransportError extends Error {
  readonly retryable: boolean;
  constructor(
    readonly errorClass: TransportErrorClass,
    message: string,
    readonly httpStatus: number | null = null,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = "TransportError";
    this.retryable = RETRYABLE.has(errorClass);
  }
}

/** `retry-after-ms`, or `retry-after` in seconds or as an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, nowMs: number): number | null {
  const ms = Number(headers?.get("retry-after-ms") ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get("retry-after");
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

/** The error classes both official SDKs (Stainless-generated) export. */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error & { status?: number | undefined; headers?: Headers | undefined };
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
}

/** The server rejected the structured-output mechanism itself (OpenAI-compatible servers without json_schema). */
const FORMAT_REJECTION = /response_format|json_schema|structured output/i;

function classOfStatus(status: number, message: string): TransportErrorClass {
  if (status === 429) return "rate_limited";
  if (status >= 500 || status === 408 || status === 409) return "server_error";
  if (status === 401 || status === 403) return "auth";
  if (status === 400 || status === 422) return FORMAT_REJECTION.test(message) ? "format_unsupported" : "bad_request";
  return "client_error";
}

/** Map an SDK or fetch failure to a TransportError (a body cut mid-stream is a connection failure). */
export function classifySdkError(e: unknown, sdk: SdkErrorClasses, nowMs: number): TransportError {
  if (e instanceof TransportError) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof sdk.APIConnectionTimeoutError) return new TransportError("timeout", message);
  if (e instanceof sdk.APIConnectionError) return connectionFailure(e, message);
  if (e instanceof sdk.APIError && typeof e.status === "number") {
    return new TransportError(classOfStatus(e.status, message), message, e.status, parseRetryAfter(e.headers, nowMs));
  }
  // Outside the SDK's own wrapping: a JSON body cut short, or fetch's "terminated" when the socket drops.
  if (e instanceof SyntaxError || (e instanceof TypeError && /terminated|fetch failed|socket/i.test(message))) {
    return connectionFailure(e, message);
  }
  throw e;
}
