import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { canonicalJson, sha256 } from "../../src/canonical.ts";
import { ROLES, type CallRecord, type Role } from "../../src/formats/records.ts";
import type { Reply } from "../../src/providers/adapter.ts";
import type { ForwardResult, WireForwarder } from "../../src/providers/types.ts";
import type { EngineManifest, EngineWire } from "./manifest.ts";

/** The largest request body the proxy reads: a prompt is kilobytes; a runaway engine must not exhaust fieldtest's memory. */
const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** The API path each wire format is served at, under a role's base URL. */
const WIRE_PATHS: Record<EngineWire, string> = { openai: "/v1/chat/completions", anthropic: "/v1/messages" };

interface ProxyOptions {
  forwarder: WireForwarder;
  /** The wire format the engine speaks, and every role is served in. */
  speaks: EngineWire;
  normalize: EngineManifest["replay"]["normalize"];
  /** A new per-trial token (injectable for tests). */
  newToken?: () => string;
  /** Told of every token handed out, so that it is masked wherever it might be written. */
  onToken?: (token: string) => void;
}

/** What an engine is given for one role of one trial. */
interface RoleEndpoint {
  base_url: string;
  token: string;
}

export interface ProxySession {
  roles: Record<Role, RoleEndpoint>;
  /** Stops taking the trial's requests, waits for those in flight, and returns every call made, in the proxy's order. */
  close(): Promise<{ calls: CallRecord[]; refused: number }>;
}

/**
 * The recording proxy: a local HTTP server an external engine's LLM calls go through, one URL
 * prefix and one token per trial and role (`/t/<trial>/<role>/v1/...`), so that concurrent
 * engines are never confused. Each request is forwarded through fieldtest's model client (its
 * retries, replay, cache, budget and spend journal) and recorded with the decision context read
 * from the request the engine sent. Real API keys stay in this process.
 */
export interface RecordingProxy {
  url: string;
  open(trial: { trialKey: string; itemId: string; trial: number }): ProxySession;
  close(): Promise<void>;
}

interface OpenTrial {
  trialKey: string;
  itemId: string;
  trial: number;
  tokens: Record<Role, Buffer>;
  calls: { seq: number; record: CallRecord | null }[];
  inFlight: Set<Promise<void>>;
  closed: boolean;
  refused: number;
  /** The round the next critic call belongs to; a planner call after a critic call opens the next. */
  round: number;
  criticSinceRound: boolean;
  /** Per role and request key: the seq of the first such request, and how many came. */
  seen: Map<string, { first: number; count: number }>;
}

const newTokenDefault = () => `ft-${randomBytes(24).toString("hex")}`;

/** Why the proxy turned a request away, as the engine's SDK is answered. */
interface Refusal {
  status: number;
  code: string;
  message: string;
}

export async function startRecordingProxy(options: ProxyOptions): Promise<RecordingProxy> {
  const trials = new Map<string, OpenTrial>();
  const keyText = normalizedKeyText(options.normalize);
  const { server, url } = await listen((req, res) => {
    handle(req, res).catch((e: unknown) => answerError(res, options.speaks, 500, "proxy_error", `fieldtest's proxy failed: ${(e as Error).message}`));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const routed = routeOf(req, trials);
    if (routed === null) {
      req.resume();
      return answerError(res, options.speaks, 404, "not_found", `no open trial at ${req.url}: each trial's roles have their own base URL`);
    }
    const { trial, role } = routed;
    const request = await admitted(req, routed, options.speaks);
    if ("refusal" in request) {
      trial.refused++;
      req.resume();
      return answerError(res, options.speaks, request.refusal.status, request.refusal.code, request.refusal.message);
    }
    const seq = trial.calls.length;
    const slot: OpenTrial["calls"][number] = { seq, record: null };
    trial.calls.push(slot);
    countRound(trial, role);
    const key = keyText(request.body);
    const earlier = sameRequestBefore(trial, `${role}\n${sha256(key ?? canonicalJson(request.body))}`, seq);
    const work = options.forwarder
      .forward({
        role,
        wire: options.speaks,
        body: request.body,
        keyText: key,
        itemId: trial.itemId,
        trial: trial.trial,
        round: trial.round,
        attempt: earlier?.count ?? 0,
        trialKey: trial.trialKey,
      })
      .then((result) => {
        slot.record = { ...result.record, proxy: { seq, user_agent: headerText(req.headers["user-agent"]), retry_of: earlier?.first ?? null } };
        answer(res, options.speaks, result, request.body, seq);
      });
    trial.inFlight.add(work);
    try {
      await work;
    } finally {
      trial.inFlight.delete(work);
    }
  }

  let opened = 0;
  return {
    url,
    open: (trial) => openTrial(trials, options, url, trial, `${trial.trialKey.replaceAll("/", ".")}.${opened++}`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The text a request is keyed by when the engine's manifest normalizes it (undefined: its canonical body). */
function normalizedKeyText(normalize: ProxyOptions["normalize"]): (body: Record<string, unknown>) => string | undefined {
  const rules = normalize.map((r) => ({ pattern: new RegExp(r.pattern, "g"), replace: r.replace }));
  return (body) => {
    if (rules.length === 0) return undefined;
    return rules.reduce((text, r) => text.replace(r.pattern, r.replace), canonicalJson(body));
  };
}

/** An HTTP server on a free local port. */
async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

/** The open trial and role a request's URL names, and the API path under them; null when it names none. */
function routeOf(req: IncomingMessage, trials: ReadonlyMap<string, OpenTrial>): { trial: OpenTrial; role: Role; path: string } | null {
  const route = /^\/t\/([^/]+)\/([a-z]+)(\/.*)$/.exec((req.url ?? "").split("?")[0]!);
  const trial = route ? trials.get(route[1]!) : undefined;
  const role = route?.[2] as Role | undefined;
  if (!route || trial === undefined || !ROLES.includes(role!)) return null;
  return { trial, role: role!, path: route[3]! };
}

/** The request's JSON body when the proxy takes it: an open trial, the role's token, the wire's path, a JSON object that asks for no stream. */
async function admitted(
  req: IncomingMessage,
  { trial, role, path }: { trial: OpenTrial; role: Role; path: string },
  speaks: EngineWire,
): Promise<{ body: Record<string, unknown> } | { refusal: Refusal }> {
  const refuse = (status: number, code: string, message: string) => ({ refusal: { status, code, message } });
  if (trial.closed) return refuse(410, "trial_closed", "this trial has ended");
  if (!tokenMatches(req, trial.tokens[role]))
    return refuse(401, "invalid_token", `the ${role} token of this trial was not sent (Authorization: Bearer <token>, or x-api-key)`);
  if (req.method !== "POST" || path !== WIRE_PATHS[speaks]) {
    return refuse(404, "not_found", `this engine speaks ${speaks}: POST <base_url>${WIRE_PATHS[speaks].slice(3)}, not ${req.method} ${path}`);
  }
  const text = await readBody(req);
  if (text === null) return refuse(413, "too_large", `the request body is larger than ${MAX_REQUEST_BYTES} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return refuse(400, "invalid_json", "the request body is not JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return refuse(400, "invalid_request", "the request body is not a JSON object");
  const request = body as Record<string, unknown>;
  if (request.stream === true) return refuse(400, "streaming_unsupported", "fieldtest's proxy does not stream: send the request without stream: true");
  return { body: request };
}

/** A planner call after a critic call opens the next round. */
function countRound(trial: OpenTrial, role: Role): void {
  if (role === "planner" && trial.criticSinceRound) {
    trial.round++;
    trial.criticSinceRound = false;
  }
  if (role === "critic") trial.criticSinceRound = true;
}

/** The first and the count of the same requests (per role and key) before this one, which it now joins; undefined for the first. */
function sameRequestBefore(trial: OpenTrial, identity: string, seq: number): { first: number; count: number } | undefined {
  const earlier = trial.seen.get(identity);
  trial.seen.set(identity, earlier ? { first: earlier.first, count: earlier.count + 1 } : { first: seq, count: 1 });
  return earlier;
}

/** Opens a trial under `id`: a base URL and a new token per role. */
function openTrial(
  trials: Map<string, OpenTrial>,
  options: ProxyOptions,
  url: string,
  { trialKey, itemId, trial }: { trialKey: string; itemId: string; trial: number },
  id: string,
): ProxySession {
  const token = () => {
    const t = (options.newToken ?? newTokenDefault)();
    options.onToken?.(t);
    return t;
  };
  const roles = Object.fromEntries(
    ROLES.map((role) => [role, { base_url: `${url}/t/${id}/${role}${options.speaks === "openai" ? "/v1" : ""}`, token: token() }]),
  ) as Record<Role, RoleEndpoint>;
  const state: OpenTrial = {
    trialKey,
    itemId,
    trial,
    tokens: Object.fromEntries(ROLES.map((role) => [role, Buffer.from(roles[role].token)])) as Record<Role, Buffer>,
    calls: [],
    inFlight: new Set(),
    closed: false,
    refused: 0,
    round: 0,
    criticSinceRound: false,
    seen: new Map(),
  };
  trials.set(id, state);
  return {
    roles,
    async close() {
      state.closed = true;
      while (state.inFlight.size > 0) await Promise.allSettled([...state.inFlight]);
      trials.delete(id);
      return { calls: state.calls.flatMap((c) => (c.record ? [c.record] : [])), refused: state.refused };
    },
  };
}

function headerText(value: string | string[] | undefined): string | null {
  return typeof value === "string" ? value : Array.isArray(value) ? value.join(", ") : null;
}

/** The token as either SDK sends it, compared in constant time. */
function tokenMatches(req: IncomingMessage, token: Buffer): boolean {
  const auth = headerText(req.headers.authorization);
  const sent = (auth !== null && /^bearer\s+/i.test(auth) ? auth.replace(/^bearer\s+/i, "") : null) ?? headerText(req.headers["x-api-key"]);
  if (sent === null) return false;
  const given = Buffer.from(sent.trim());
  return given.length === token.length && timingSafeEqual(given, token);
}

/** The body as text; null when it is larger than MAX_REQUEST_BYTES. */
function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(c);
    });
    req.on("end", () => resolve(size > MAX_REQUEST_BYTES ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** An error in the engine's wire format, so its SDK reads it as the API's own. */
function answerError(res: ServerResponse, speaks: EngineWire, status: number, code: string, message: string): void {
  const body =
    speaks === "openai"
      ? { error: { message, type: "fieldtest_proxy_error", code } }
      : { type: "error", error: { type: status === 429 ? "rate_limit_error" : status >= 500 ? "api_error" : "invalid_request_error", message } };
  send(res, status, body);
}

/** The status an engine gets for a call that got no answer: the provider's own, or the gateway's. */
function failureStatus(failure: NonNullable<ForwardResult["failure"]>): number {
  if (failure.httpStatus !== null && failure.httpStatus >= 400) return failure.httpStatus;
  if (failure.errorClass === "timeout") return 504;
  if (failure.errorClass === "rate_limited") return 429;
  if (failure.errorClass === "budget_exceeded") return 503;
  return 502;
}

function answer(res: ServerResponse, speaks: EngineWire, result: ForwardResult, request: Record<string, unknown>, seq: number): void {
  if (result.reply === null) return answerError(res, speaks, failureStatus(result.failure!), result.failure!.errorClass, result.failure!.message);
  send(res, 200, result.reply.raw ?? wireAnswer(speaks, result.reply, request, seq));
}

/**
 * An answer in the wire format when only its parts were kept (a replayed or cached answer): its
 * text as the message, or as the call of the one tool the request forced.
 */
function wireAnswer(speaks: EngineWire, reply: Reply, request: Record<string, unknown>, seq: number): unknown {
  const model = reply.reportedModel ?? (typeof request.model === "string" ? request.model : "");
  const forced = forcedTool(speaks, request.tool_choice);
  if (speaks === "openai") {
    const message = forced
      ? { role: "assistant", content: null, tool_calls: [{ id: `call_fieldtest_${seq}`, type: "function", function: { name: forced, arguments: reply.text } }] }
      : { role: "assistant", content: reply.text };
    return {
      id: `chatcmpl-fieldtest-${seq}`,
      object: "chat.completion",
      created: 0,
      model,
      choices: [{ index: 0, message, finish_reason: reply.incomplete ? "length" : forced ? "tool_calls" : "stop" }],
      ...(reply.usage
        ? {
            usage: {
              prompt_tokens: reply.usage.input_tokens,
              completion_tokens: reply.usage.output_tokens,
              total_tokens: reply.usage.input_tokens + reply.usage.output_tokens,
            },
          }
        : {}),
      ...(reply.fingerprint ? { system_fingerprint: reply.fingerprint } : {}),
    };
  }
  const input = forced ? parsedObject(reply.text) : null;
  return {
    id: `msg_fieldtest_${seq}`,
    type: "message",
    role: "assistant",
    model,
    content: input ? [{ type: "tool_use", id: `toolu_fieldtest_${seq}`, name: forced, input }] : [{ type: "text", text: reply.text }],
    stop_reason: reply.incomplete ? "max_tokens" : input ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: reply.usage?.input_tokens ?? 0, output_tokens: reply.usage?.output_tokens ?? 0 },
  };
}

function forcedTool(speaks: EngineWire, choice: unknown): string | null {
  if (typeof choice !== "object" || choice === null) return null;
  const c = choice as { type?: unknown; name?: unknown; function?: { name?: unknown } };
  const name = speaks === "openai" ? (c.type === "function" ? c.function?.name : undefined) : c.type === "tool" ? c.name : undefined;
  return typeof name === "string" ? name : null;
}

function parsedObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
