import type { AdapterEnv } from "./adapter.ts";
import { sdkEndpoint } from "./endpoint.ts";
import { createHttpFetch } from "./http-fetch.ts";
import type { RoleSettings } from "./role-settings.ts";

/** The content type the SDKs would set for an object body; given with a string body, they send the string as it is. */
export const JSON_CONTENT = { "content-type": "application/json" } as const;

/**
 * The options both vendor SDKs are built with: the endpoint, the role's headers, the harness's own
 * fetch and no retries of their own (the client's one retry loop decides).
 */
export function sdkClientOptions(role: RoleSettings, { apiKey, now, endpoint }: AdapterEnv) {
  return {
    // A custom server may need no key; the SDKs insist on one, so a placeholder fills in.
    apiKey: apiKey ?? "unused",
    ...sdkEndpoint(endpoint.url),
    defaultHeaders: role.headers,
    maxRetries: 0,
    fetch: createHttpFetch(now),
  };
}

/**
 * A vendor SDK's client, loaded and built at its first send: rendering and describing a request
 * need no SDK, so a thread that only builds requests (a sweep's, whose sends go to the HTTP
 * thread) never loads one.
 */
export function lazySdk<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}
