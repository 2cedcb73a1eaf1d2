// The compiled provider registry with one provider added in one place, the way a contributor
// adds one to src/providers/registry.ts: an HTTP provider `acme` with its key variable, its
// default endpoint, its SDK and an adapter module. Every export of the real module is given,
// derived from the longer list by the real module's own builder.
import * as real from "../../../dist/src/providers/registry.js";

/** A stand-in for a vendor adapter: renders a chat body, answers `{"ok":true}` at once. */
const ACME_ADAPTER = {
  create: (role, env) => ({
    sdkVersion: "9.9.9",
    baseUrl: env.endpoint.url,
    formats: ["json_schema"],
    render: (c) => ({ model: role.model, system: c.system, messages: [{ role: "user", content: c.user }], schema: c.schema }),
    describe: (body) => ({
      model: body.model,
      temperature: null,
      top_p: null,
      seed: null,
      max_tokens: null,
      response_format: "json_schema",
      systemText: body.system,
      userPrompt: body.messages[0].content,
      schema: body.schema,
    }),
    send: async () => ({
      text: JSON.stringify({ ok: true, vendor: env.endpoint.vendor, keyed: env.apiKey !== undefined }),
      usage: { input_tokens: 10, output_tokens: 2 },
      reportedModel: role.model,
      fingerprint: null,
      httpStatus: 200,
      incomplete: null,
    }),
  }),
  cannedAnswer: JSON.stringify({ ok: true }),
};

const ACME = {
  kind: "http",
  id: "acme",
  sdk: "acme-sdk",
  billed: true,
  apiKeyEnv: "ACME_API_KEY",
  defaultBaseUrl: "https://api.acme.test/v1",
  loadSdk: async () => ({}),
  adapter: async () => ACME_ADAPTER,
};

export const PROVIDERS = [...real.PROVIDERS, ACME];
export const { REPLAY, providerRegistry } = real;
export const { WIRE_PROVIDERS, LIVE_PROVIDERS, isWireProvider, isLiveProvider, providerDefinition, liveDefinition, defaultModel } =
  real.providerRegistry(PROVIDERS);
/** The real module's export names, for the test to check that this module gives every one. */
export const REAL_EXPORTS = Object.keys(real);
