import { ROLES } from "../formats/records.ts";
import type { ClientConfig, RoleConfigInput } from "./config.ts";
import { DEFAULT_BASE_URLS, isVendorEndpoint } from "./endpoint.ts";

export const API_KEY_ENV = { openai: "OPENAI_API_KEY", anthropic: "ANTHROPIC_API_KEY" } as const;

/** The providers a vendor SDK speaks to over HTTP, each with its key's variable. */
export type LiveProvider = keyof typeof API_KEY_ENV;
export type Env = Readonly<Record<string, string | undefined>>;

/** A missing key, reported in one line before any work starts (the message never holds a key). */
export class MissingApiKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MissingApiKeyError";
  }
}

/** The live provider a role actually calls, if any (replay calls one only when it may fall through). */
export function liveProviderOf(role: RoleConfigInput): LiveProvider | null {
  const provider = role.provider === "replay" ? (role.replay?.fallThrough ? role.replay.as : null) : role.provider;
  return provider === "openai" || provider === "anthropic" ? provider : null;
}

/** The live providers a client configuration calls, each once. */
export function liveProvidersOf(config: Pick<ClientConfig, "planner" | "critic">): LiveProvider[] {
  return [...new Set(ROLES.map((name) => liveProviderOf(config[name])).filter((p) => p !== null))];
}

export function apiKeyFor(provider: LiveProvider, env: Env): string | undefined {
  const key = env[API_KEY_ENV[provider]];
  return key === undefined || key === "" ? undefined : key;
}

/**
 * Throws MissingApiKeyError when a role calls a vendor's default endpoint without its key in the
 * environment. A custom baseUrl on another host (Ollama, vLLM, a proxy) may need no key.
 */
export function checkApiKeys(config: Pick<ClientConfig, "planner" | "critic">, env: Env = process.env): void {
  for (const name of ROLES) {
    const role = config[name];
    const provider = liveProviderOf(role);
    if (!provider || !isVendorEndpoint(provider, role.baseUrl) || apiKeyFor(provider, env)) continue;
    throw new MissingApiKeyError(
      `${API_KEY_ENV[provider]} is not set: the ${name} uses ${provider} at ${DEFAULT_BASE_URLS[provider]} ` +
        `(set it in the environment, or pass --base-url for a server that needs no key)`,
    );
  }
}
