import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { LiveProvider } from "./api-keys.ts";
import { createLiveAdapter } from "./live.ts";

/** What each provider's API answers a structured request with, at its smallest. */
const CANNED_ANSWERS: Record<LiveProvider, string> = {
  openai: JSON.stringify({
    id: "rehearsal",
    object: "chat.completion",
    created: 0,
    model: "rehearsal",
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: '{"findings":[]}', refusal: null } }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }),
  anthropic: JSON.stringify({
    id: "rehearsal",
    type: "message",
    role: "assistant",
    model: "rehearsal",
    content: [{ type: "tool_use", id: "rehearsal", name: "rehearsal", input: { findings: [] } }],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  }),
};

export interface RehearsalOptions {
  /** Sends in all, and how many at once. */
  sends?: number;
  parallel?: number;
  /** Checked before each send: the rehearsal ends early once real work has come. */
  done?: () => boolean;
}

/**
 * Runs a provider's whole send path (the SDK's request building, the thread's fetch, node:http,
 * the answer's parsing) against a loopback server of its own that answers at once, so that the
 * sweep's first wave finds that code compiled instead of compiling it while every slot waits. The
 * HTTP thread does it while the main thread loads the corpus (16 sends, 4 at a time: they compile
 * what the first calls would; more only delay the first real send). Nothing leaves the machine,
 * nothing is recorded, and a failure only means the first sends run cold. Returns how many sends the adapter read an answer from.
 */
export async function rehearse(provider: LiveProvider, { sends = 16, parallel = 4, done = () => false }: RehearsalOptions = {}): Promise<number> {
  const answer = CANNED_ANSWERS[provider];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) }).end(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const adapter = await createLiveAdapter(provider, { provider, model: "rehearsal", baseUrl: `http://127.0.0.1:${port}/v1` }, { apiKey: "rehearsal", now: Date.now });
    const conversation = { system: "Rehearsal.", user: "Rehearsal. ".repeat(400), schemaName: "rehearsal", schema: { type: "object" }, corrections: [] };
    const body = JSON.stringify(adapter.render(conversation, adapter.formats[0]!));
    let started = 0;
    let answered = 0;
    const lane = async () => {
      while (started < sends && !done()) {
        started++;
        if ((await adapter.send(body, { timeoutMs: 10_000, attempt: 0 })).text !== "") answered++;
      }
    };
    await Promise.all(Array.from({ length: parallel }, lane));
    return answered;
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
