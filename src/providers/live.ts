import type { AdapterEnv, ProviderAdapter } from "./adapter.ts";
import type { LiveProvider } from "./api-keys.ts";
import type { RoleConfig } from "./config.ts";

const ADAPTER_MODULES = {
  openai: async () => (await import("./openai.ts")).createOpenAiAdapter,
  anthropic: async () => (await import("./anthropic.ts")).createAnthropicAdapter,
};

const SDKS = { openai: () => import("openai"), anthropic: () => import("@anthropic-ai/sdk") };

/** A vendor's adapter. Each loads only when a role uses it, and its SDK only at its first send. */
export async function createLiveAdapter(provider: LiveProvider, role: RoleConfig, env: AdapterEnv): Promise<ProviderAdapter> {
  return (await ADAPTER_MODULES[provider]())(role, env);
}

/** Loads a provider's adapter and SDK into this thread ahead of its first send (which then finds them loaded). */
export async function preloadLive(provider: LiveProvider): Promise<void> {
  await Promise.all([ADAPTER_MODULES[provider](), SDKS[provider]()]);
}
