import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cannedAnswer, createLiveAdapter } from "../adapters.ts";
import type { LiveProvider } from "../registry.ts";

interface RehearsalOptions {
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
  const answer = await cannedAnswer(provider);
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) }).end(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const adapter = await createLiveAdapter(provider, { model: "rehearsal", baseUrl: `http://127.0.0.1:${port}/v1` }, { apiKey: "rehearsal", now: Date.now });
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
