import { classifySdkError, type ProviderAdapter, type Reply, type SdkErrorClasses, type SendOptions } from "./adapter.ts";
import { timingFetchOptions } from "./http-fetch.ts";
import { JSON_CONTENT } from "./sdk-client.ts";

/** What an API's answer body says; the send adds the HTTP status and, when asked, the body itself. */
export type Answer = Omit<Reply, "httpStatus" | "raw">;

/** A vendor SDK as its first send loads it: the client, and the error classes its failures are instances of. */
interface LoadedSdk<C> {
  client: C;
  errors: SdkErrorClasses;
}

/** The per-request options one send gives either SDK: its timeout, the body's content type, its timing record. */
export interface SdkRequestOptions {
  timeout: number;
  headers: typeof JSON_CONTENT;
  fetchOptions: Record<string, never>;
}

/** How an adapter sends through its SDK; only posting the body and reading the answer depend on the API. */
interface SdkExchange<C, T> {
  sdk: () => Promise<LoadedSdk<C>>;
  now: () => number;
  /** Posts the body text exactly as given, with the send's options. */
  post(client: C, bodyJson: string, request: SdkRequestOptions): Promise<{ data: T; response: { status: number } }>;
  /** The answer a success body stands for; throws the failed call a body without an answer stands for (rejectNonAnswer). */
  read(data: T, status: number): Answer;
}

/**
 * An adapter's `send` through a vendor SDK: one post, its answer as a Reply, and any failure (the
 * SDK's, the fetch's, or a success body that carries no answer) as the TransportError the client's
 * retry loop decides on.
 */
export function sdkSend<C, T>({ sdk, now, post, read }: SdkExchange<C, T>): ProviderAdapter["send"] {
  return async (bodyJson, options: SendOptions): Promise<Reply> => {
    const { client, errors } = await sdk();
    try {
      const request = { timeout: options.timeoutMs, headers: JSON_CONTENT, fetchOptions: timingFetchOptions(options.timing) };
      const { data, response } = await post(client, bodyJson, request);
      return { ...read(data, response.status), httpStatus: response.status, ...(options.wire ? { raw: data } : {}) };
    } catch (e) {
      throw classifySdkError(e, errors, now());
    }
  };
}
