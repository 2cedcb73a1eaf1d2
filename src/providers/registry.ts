import type { Role } from "../formats/records.ts";
import type { HttpAdapterModule, InProcessAdapterFactory } from "./adapter.ts";

interface ProviderBase {
  /** What a role names (`--provider`, `provider:`), and every call records as `context.provider`. */
  id: string;
  /** The SDK every call records (`context.sdk`; its version is the adapter's to say). */
  sdk: string;
  /** Whether its sends cost money: priced from prices.yaml (an unknown model's cost is null), or else every send costs 0. */
  billed: boolean;
}

/** A provider behind an HTTP API, reached through its vendor SDK (on the HTTP thread in a sweep). */
interface HttpProviderDefinition extends ProviderBase {
  kind: "http";
  /** The environment variable its API key is read from: the only place a key comes from. */
  apiKeyEnv: string;
  /** The vendor's own endpoint: a role that calls it there needs the key; a `baseUrl` on another host may need none. */
  defaultBaseUrl: string;
  /** Its SDK, loaded on the HTTP thread ahead of the first send. */
  loadSdk: () => Promise<unknown>;
  /** Its adapter module, loaded only when a role uses the provider. */
  adapter: () => Promise<HttpAdapterModule>;
}

/** A provider that answers inside the process: no endpoint, no key. */
interface InProcessProviderDefinition extends ProviderBase {
  kind: "in-process";
  /** The model each role is given when it names the provider without one. */
  defaultModels: Readonly<Record<Role, string>>;
  /** Its adapter factory, loaded only when a role uses the provider. */
  adapter: () => Promise<InProcessAdapterFactory>;
}

type ProviderDefinition = HttpProviderDefinition | InProcessProviderDefinition;

/**
 * Every provider a role can name, each once. The config's choices, the API-key check, the
 * endpoint defaults, adapter and SDK loading, billing and every list the CLI prints derive from
 * this list (docs/architecture.md, "Adding a provider").
 */
export const PROVIDERS = [
  {
    kind: "in-process",
    id: "sim",
    sdk: "fieldtest-sim",
    billed: false,
    defaultModels: { planner: "sim-planner-1", critic: "sim-critic-1" },
    adapter: async () => (await import("../sim/adapter.ts")).simAdapter,
  },
  {
    kind: "http",
    id: "openai",
    sdk: "openai",
    billed: true,
    apiKeyEnv: "OPENAI_API_KEY",
    defaultBaseUrl: "https://api.openai.com/v1",
    loadSdk: () => import("openai"),
    adapter: async () => (await import("./openai.ts")).OPENAI_ADAPTER,
  },
  {
    kind: "http",
    id: "anthropic",
    sdk: "@anthropic-ai/sdk",
    billed: true,
    apiKeyEnv: "ANTHROPIC_API_KEY",
    defaultBaseUrl: "https://api.anthropic.com",
    loadSdk: () => import("@anthropic-ai/sdk"),
    adapter: async () => (await import("./anthropic.ts")).ANTHROPIC_ADAPTER,
  },
] as const satisfies readonly ProviderDefinition[];

/** What a role names when it replays a recorded run: no provider may take it. */
export const REPLAY = "replay";

/**
 * The lookups every consumer derives from a provider list: the ids in order (the first is the
 * default), the HTTP ones, and each id's definition. Built once from PROVIDERS below; a test
 * builds it from a longer list.
 */
export function providerRegistry<const P extends readonly ProviderDefinition[]>(providers: P) {
  type Id = P[number]["id"];
  type Live = Extract<P[number], { kind: "http" }>["id"];
  const byId = new Map<string, ProviderDefinition>(providers.map((p) => [p.id, p]));
  if (byId.size !== providers.length || byId.has(REPLAY)) throw new Error(`provider ids must be distinct and not "${REPLAY}"`);
  const isWireProvider = (id: string): id is Id => byId.has(id);
  const isLiveProvider = (id: string): id is Live => byId.get(id)?.kind === "http";
  const providerDefinition = <I extends Id>(id: I) => byId.get(id) as Extract<P[number], { id: I }>;
  return {
    WIRE_PROVIDERS: providers.map((p): Id => p.id),
    LIVE_PROVIDERS: providers.map((p) => p.id).filter(isLiveProvider),
    isWireProvider,
    isLiveProvider,
    providerDefinition,
    liveDefinition: (id: Live) => byId.get(id) as HttpProviderDefinition,
    /** The model an in-process provider gives a role that names none; undefined where a role must name one (a vendor, replay). */
    defaultModel: (id: string, role: Role): string | undefined => {
      const definition = byId.get(id);
      return definition?.kind === "in-process" ? definition.defaultModels[role] : undefined;
    },
  };
}

export const { WIRE_PROVIDERS, LIVE_PROVIDERS, isWireProvider, isLiveProvider, providerDefinition, liveDefinition, defaultModel } = providerRegistry(PROVIDERS);

/** A provider a request can be rendered for (replay renders as one of these). */
export type WireProvider = (typeof WIRE_PROVIDERS)[number];
/** A provider behind an HTTP API, with its key's variable and its default endpoint. */
export type LiveProvider = (typeof LIVE_PROVIDERS)[number];
