import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

/** What the fake server does with one request. */
export type Step =
  | {
      status: number;
      body: unknown;
      headers?: Record<string, string>;
      /** Answer after this long (calls overlap). */
      delayMs?: number;
      /** Answer once this settles (a test holds its client mid-run). */
      until?: Promise<unknown>;
    }
  /** Never answer (the client's timeout must fire). */
  | { hang: true }
  /** Announce a body, send part of it, then drop the connection. */
  | { truncate: unknown };

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  raw: string;
}

export interface FakeServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * A node:http server on 127.0.0.1 that answers requests with the scripted steps in order (the
 * last step repeats), recording every request it received.
 */
export async function startFakeServer(steps: Step[] | ((req: Received, index: number) => Step)): Promise<FakeServer> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const r: Received = { path: req.url ?? "", headers: req.headers, body: raw ? JSON.parse(raw) : {}, raw };
      received.push(r);
      const index = received.length - 1;
      const step = typeof steps === "function" ? steps(r, index) : steps[Math.min(index, steps.length - 1)]!;
      if ("hang" in step) return;
      if ("truncate" in step) {
        const text = JSON.stringify(step.truncate);
        res.writeHead(200, { "content-type": "application/json", "content-length": String(text.length) });
        res.write(text.slice(0, Math.floor(text.length / 2)));
        setImmediate(() => res.socket?.destroy());
        return;
      }
      const answer = () => {
        res.writeHead(step.status, { "content-type": "application/json", ...step.headers });
        // A text body under another content type goes as it is (an HTML page), anything else as JSON.
        const asText = typeof step.body === "string" && !/json/.test(step.headers?.["content-type"] ?? "json");
        res.end(asText ? (step.body as string) : JSON.stringify(step.body));
      };
      const later = () => (step.delayMs ? setTimeout(answer, step.delayMs) : answer());
      if (step.until) void step.until.then(later);
      else later();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Start servers inside tests; each is closed after its test. */
export function useFakeServers(): (steps: Parameters<typeof startFakeServer>[0]) => Promise<FakeServer> {
  const open: FakeServer[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  return async (steps) => {
    const server = await startFakeServer(steps);
    open.push(server);
    return server;
  };
}

/** An OpenAI Chat Completions response carrying `content`. */
export function chatCompletion(content: unknown, over: { model?: string; system_fingerprint?: string | null; finish_reason?: string } = {}) {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: over.model ?? "gpt-4o-mini",
    system_fingerprint: over.system_fingerprint ?? "fp_test",
    choices: [{ index: 0, finish_reason: over.finish_reason ?? "stop", message: { role: "assistant", content, refusal: null } }],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  };
}

/** An Anthropic Messages response with one tool_use block. */
export function anthropicToolUse(input: unknown, over: { model?: string } = {}) {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: over.model ?? "claude-sonnet-4-5",
    stop_reason: "tool_use",
    stop_sequence: null,
    content: [{ type: "tool_use", id: "toolu_1", name: "answer", input }],
    usage: { input_tokens: 200, output_tokens: 30 },
  };
}

/** An OpenAI-style error body. */
export function errorBody(message: string, type = "server_error") {
  return { error: { message, type, code: null, param: null } };
}
