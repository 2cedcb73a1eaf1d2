import { z } from "zod";

/**
 * The longest per-request timeout: a day, far past any model's answer. A Node timer longer than
 * 2^31 - 1 ms (about 24.8 days) fires at once, so an unbounded value would time every call out
 * after 1 ms instead of waiting.
 */
export const MAX_TIMEOUT_MS = 86_400_000;

/** An endpoint: http or https, the only schemes the SDKs speak. */
export const HttpUrlSchema = z.url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" });

/**
 * What a role sets besides which provider serves it: the model, its endpoint and headers, the
 * sampling sent, and the limits on its sends. An adapter is built from these alone, so it needs
 * nothing that names the providers (config.ts adds the provider, from the registry).
 */
export const RoleSettingsShape = {
  model: z.string().min(1),
  baseUrl: HttpUrlSchema.optional(),
  headers: z.record(z.string(), z.string()).optional(),
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().gt(0).max(1).optional(),
  seed: z.number().int().optional(),
  maxTokens: z.number().int().positive().optional(),
  timeoutMs: z.number().int().positive().max(MAX_TIMEOUT_MS).optional(),
  concurrency: z.number().int().positive().optional(),
  rpm: z.number().positive().optional(),
};
export type RoleSettings = z.output<z.ZodObject<typeof RoleSettingsShape>>;
