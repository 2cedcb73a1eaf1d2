import { ROLES } from "../formats/records.ts";
import type { ClientConfig, RoleConfigInput } from "./config.ts";
import { isVendorEndpoint } from "./endpoint.ts";
import { isLiveProvider, liveDefinition, type LiveProvider } from "./registry.ts";

export type Env = Readonly<Record<string, string | undefined>>;

/** A missing key, reported in one line before any work starts (the message never holds a key). */
export class MissingApiKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MissingApiKeyError";
  }
}

/** The live provider a role actually calls, if any (replay calls one only when it may fall through). */
function liveProviderOf(role: RoleConfigInput): LiveProvider | null {
  const provider = role.provider === "replay" ? (role.replay?.fallThrough ? role.replay.as : null) : role.provider;
  return provider !== null && isLiveProvider(provider) ? provider : null;
}

/** The live providers a client configuration calls, each once. */
export function liveProvidersOf(config: Pick<ClientConfig, "planner" | "critic">): LiveProvider[] {
  return [...new Set(ROLES.map((name) => liveProviderOf(config[name])).filter((p) => p !== null))];
}

export function apiKeyFor(provider: LiveProvider, env: Env): string | undefined {
  const key = env[liveDefinition(provider).apiKeyEnv];
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
    if (!provider) continue;
    const { apiKeyEnv, defaultBaseUrl } = liveDefinition(provider);
    if (!isVendorEndpoint(defaultBaseUrl, role.baseUrl) || apiKeyFor(provider, env)) continue;
    throw new MissingApiKeyError(
      `${apiKeyEnv} is not set: the ${name} uses ${provider} at ${defaultBaseUrl} ` +
        `(set it in the environment, or pass --base-url for a server that needs no key)`,
    );
  }
}
