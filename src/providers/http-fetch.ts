import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import type { TransportTiming } from "./adapter.ts";

const TIMING = Symbol("fieldtest.transportTiming");

/** Per-request SDK `fetchOptions` that carry a send's timing record to the fetch (both SDKs pass them through). */
export function timingFetchOptions(timing: TransportTiming | undefined): Record<string, never> {
  return timing ? ({ [TIMING]: timing } as Record<string, never>) : {};
}

/**
 * The largest answer read, before and after decoding: a completion is kilobytes, and a runaway or
 * hostile server must not exhaust the harness's memory.
 */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * One keep-alive pool per thread, as the built-in fetch has: the roles of a sweep share their
 * connections to one endpoint (a critic's request takes the socket a planner's answer just freed)
 * instead of each opening its own.
 */
const agents = { "http:": new HttpAgent({ keepAlive: true }), "https:": new HttpsAgent({ keepAlive: true }) };

/**
 * The fetch the provider SDKs send with: one request on node:http(s) over keep-alive agents, the
 * whole response buffered (at most MAX_RESPONSE_BYTES, before and after decoding). The SDKs need
 * only that (method, headers, a string body, an abort signal; no streaming, no uploads) and read
 * the answer through `status`, `ok`, `headers`, `text()` and `json()`, which BufferedResponse
 * serves straight from the buffer. It costs a fraction of the CPU of Node's built-in fetch and
 * Response, whose Web-streams machinery was most of the harness's own work per call at 64 calls
 * in flight. Failures look as they do from the built-in fetch, so the SDKs classify them the same
 * way: an abort rejects with an AbortError (the SDK's timeout), a refused or dropped connection
 * or a body cut short with a TypeError ("fetch failed", "terminated"). Redirects are not
 * followed (API endpoints do not redirect) and no proxy is used, as with the built-in fetch.
 *
 * A request that carries a timing record (timingFetchOptions) gets the exchange's timestamps:
 * from handing the request to the socket to the last byte of the answer. That span is the
 * call's latency: not the SDK's request building and parsing, nor the harness's work around it.
 */
export function createHttpFetch(now: () => number, maxResponseBytes = MAX_RESPONSE_BYTES): typeof fetch {
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const timing = (init as Record<symbol, TransportTiming | undefined>)[TIMING];
      const signal = init.signal ?? undefined;
      if (signal?.aborted) return reject(abortError());
      if (url.protocol !== "http:" && url.protocol !== "https:") return reject(new TypeError(`fetch failed: unsupported protocol ${url.protocol}`));
      const body = bodyOf(init.body);
      const headers = headersOf(init.headers);
      if (body !== null) headers["content-length"] = String(Buffer.byteLength(body));
      const send = url.protocol === "https:" ? httpsRequest : httpRequest;
      const req = send(url, { method: init.method ?? "GET", headers, agent: agents[url.protocol] });
      let settled = false;
      const fail = (e: Error) => {
        if (settled) return;
        settled = true;
        if (timing) timing.endedAt = now();
        signal?.removeEventListener("abort", onAbort);
        reject(e);
      };
      const onAbort = () => {
        fail(abortError());
        req.destroy();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      req.on("error", (e) => fail(new TypeError("fetch failed", { cause: e })));
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        let received = 0;
        res.on("data", (c: Buffer) => {
          received += c.length;
          if (received <= maxResponseBytes) return void chunks.push(c);
          fail(new TypeError(`fetch failed: the response is larger than ${maxResponseBytes} bytes`));
          req.destroy();
        });
        res.on("aborted", () => fail(new TypeError("terminated")));
        res.on("error", (e) => fail(new TypeError("terminated", { cause: e })));
        res.on("end", () => {
          if (settled) return;
          if (!res.complete) return fail(new TypeError("terminated"));
          if (timing) timing.endedAt = now();
          let response: BufferedResponse;
          try {
            // A body that came in one chunk is read where it is, not copied.
            response = toResponse(url.href, res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), maxResponseBytes);
          } catch (e) {
            return fail(new TypeError("fetch failed: unreadable response body", { cause: e }));
          }
          settled = true;
          signal?.removeEventListener("abort", onAbort);
          resolve(response as unknown as Response);
        });
      });
      if (timing) timing.startedAt = now();
      req.end(body ?? undefined);
    });
}

/** The request headers as a plain object; the SDKs hand over a Headers, which is read as it is rather than copied into another. */
function headersOf(init: RequestInit["headers"]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of init instanceof Headers ? init : new Headers(init)) headers[name] = value;
  return headers;
}

function abortError(): Error {
  return new DOMException("This operation was aborted", "AbortError");
}

function bodyOf(body: RequestInit["body"]): string | Buffer | null {
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  throw new TypeError("fetch failed: only string and byte bodies are sent");
}

/** Statuses whose response has no body (a Response with one cannot be built). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** The part of a fetch Response the SDKs read, over a buffered body. */
class BufferedResponse {
  readonly body = null;
  readonly redirected = false;
  readonly type = "basic";
  constructor(
    readonly url: string,
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
    private readonly bytes: Buffer | null,
  ) {}

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  async text(): Promise<string> {
    return this.bytes === null ? "" : this.bytes.toString("utf8");
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return new Uint8Array(this.bytes ?? []).buffer;
  }
}

function toResponse(url: string, res: IncomingMessage, raw: Buffer, maxBytes: number): BufferedResponse {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const status = res.statusCode ?? 0;
  const encoding = headers.get("content-encoding");
  const body = NULL_BODY_STATUSES.has(status) ? null : decode(raw, encoding, maxBytes);
  // The body is decoded here, so the Response must not claim an encoding its reader would apply again.
  headers.delete("content-encoding");
  headers.delete("content-length");
  return new BufferedResponse(url, status, res.statusMessage ?? "", headers, body);
}

/** The body as sent, decompressed to at most `maxBytes` (a small compressed body may expand without bound). */
function decode(raw: Buffer, encoding: string | null, maxBytes: number): Buffer {
  const limit = { maxOutputLength: maxBytes };
  switch (encoding?.trim().toLowerCase()) {
    case undefined:
    case "":
    case "identity":
      return raw;
    case "gzip":
    case "x-gzip":
      return gunzipSync(raw, limit);
    case "deflate":
      return inflateSync(raw, limit);
    case "br":
      return brotliDecompressSync(raw, limit);
    default:
      throw new Error(`unsupported content-encoding ${encoding}`);
  }
}
