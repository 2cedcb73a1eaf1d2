import type { AdapterEnv, InProcessEnv, ProviderAdapter } from "./adapter.ts";
import { isVendorEndpoint } from "./endpoint.ts";
import { liveDefinition, providerDefinition, type LiveProvider, type WireProvider } from "./registry.ts";
import type { RoleSettings } from "./role-settings.ts";

/**
 * A vendor's adapter for a role, from its registry entry: the module loads only when a role uses
 * the provider, and its SDK only at its first send.
 */
export async function createLiveAdapter(provider: LiveProvider, role: RoleSettings, env: Omit<AdapterEnv, "endpoint">): Promise<ProviderAdapter> {
  const { adapter, defaultBaseUrl, sdk } = liveDefinition(provider);
  const endpoint = { url: role.baseUrl ?? defaultBaseUrl, vendor: isVendorEndpoint(defaultBaseUrl, role.baseUrl) };
  return { ...(await adapter()).create(role, { ...env, endpoint }), provider, sdk };
}

/** An in-process provider's adapter for a role (the sim), from its registry entry. */
export async function createInProcessAdapter(provider: WireProvider, role: RoleSettings, env: InProcessEnv): Promise<ProviderAdapter> {
  const definition = providerDefinition(provider);
  if (definition.kind !== "in-process") throw new Error(`${provider} is not an in-process provider`);
  return { ...(await definition.adapter())(role, env), provider, sdk: definition.sdk };
}

/** Loads a provider's adapter and SDK into this thread ahead of its first send (which then finds them loaded). */
export async function preloadLive(provider: LiveProvider): Promise<void> {
  const { adapter, loadSdk } = liveDefinition(provider);
  await Promise.all([adapter(), loadSdk()]);
}

/** What the provider's API answers a structured request with, at its smallest (the rehearsal's server sends it). */
export async function cannedAnswer(provider: LiveProvider): Promise<string> {
  return (await liveDefinition(provider).adapter()).cannedAnswer;
}
