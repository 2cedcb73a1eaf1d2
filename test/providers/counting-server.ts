import { chatCompletion, startFakeServer, type FakeServer, type Received, type Step } from "./fake-server.ts";

/** Tokens every answer reports when usage is on: priced as gpt-4o-mini in src/providers/prices.yaml. */
const USAGE = { prompt_tokens: 1000, completion_tokens: 200 };
/** USD of one answer with USAGE at gpt-4o-mini's price ($0.15 in, $0.60 out per million tokens). */
export const PRICE_PER_CALL = (USAGE.prompt_tokens * 0.15 + USAGE.completion_tokens * 0.6) / 1_000_000;

export interface CountingOptions {
  /** Report priced usage (default) or none at all (cost unknown). */
  usage?: boolean;
  /** Every n-th request (1-based) gets text that is not JSON: the client feeds it back, one more call. */
  invalidEvery?: number;
  /** Every n-th request gets a 500 asking for a retry after 5 ms (a transport retry, not billed). */
  errorEvery?: number;
  /** Answer after this long, so calls of concurrent trials overlap. */
  delayMs?: number;
  /** Told of every request as it arrives (1-based), before it is answered: a test can kill its client here. */
  onRequest?: (n: number, req: Received) => void;
  /** Hold the answer to request n until the promise settles (undefined: answer as usual). */
  holdUntil?: (n: number) => Promise<unknown> | undefined;
}

/**
 * An OpenAI-compatible Chat Completions server on 127.0.0.1 (port 0) for the budget tests: it
 * counts every request it receives, answers the critic's schema with an empty findings list (the
 * planner's answers fail its schema, which the engine retries and records), and reports usage
 * priced as gpt-4o-mini, or none.
 */
export function startCountingServer(o: CountingOptions = {}): Promise<FakeServer> {
  const usage = o.usage ?? true;
  const answer = (req: Received, index: number): Step => {
    const n = index + 1;
    o.onRequest?.(n, req);
    if (o.errorEvery && n % o.errorEvery === 0)
      return { status: 500, body: { error: { message: "overloaded", type: "server_error" } }, headers: { "retry-after-ms": "5" }, delayMs: o.delayMs };
    const text = o.invalidEvery && n % o.invalidEvery === 0 ? "not json at all" : JSON.stringify({ findings: [] });
    const body = chatCompletion(text);
    return {
      status: 200,
      body: usage ? { ...body, usage: { ...USAGE, total_tokens: USAGE.prompt_tokens + USAGE.completion_tokens } } : { ...body, usage: undefined },
      delayMs: o.delayMs,
      until: o.holdUntil?.(n),
    };
  };
  return startFakeServer(answer);
}
