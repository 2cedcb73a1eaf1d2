import { ROLES } from "../formats/records.ts";
import { apiKeyFor, type Env } from "./api-keys.ts";
import type { ResolvedClientConfig } from "./config.ts";
import { urlCredentials } from "./endpoint.ts";
import { LIVE_PROVIDERS } from "./registry.ts";

/** Header names whose values are credentials. */
const SECRET_NAME = /auth|key|token|secret|cookie|passw|session|credential/i;
/** Values that look like credentials whatever their header name. */
const SECRET_VALUE = /^(bearer|basic)\s|^sk-|^sk-ant-|^xox.-|^gh[pousr]_|^AIza|^eyJ[\w-]+\.[\w-]+/i;

/**
 * The one rule for which headers hold secrets: their values are withheld from every file and
 * masked from every text; any other header is recorded as sent and masks nothing (its value may
 * well be a word a model writes, such as "production").
 */
export function isCredentialHeader(name: string, value: string): boolean {
  return SECRET_NAME.test(name) || SECRET_VALUE.test(value.trim());
}

/**
 * A credential header's value as a server may echo it: whole, its token after an auth scheme
 * (`Bearer tok`), and a Basic credential's decoded user and password.
 */
function headerSecrets(value: string): string[] {
  const [scheme, token] = value.trim().split(/\s+/, 2);
  if (token === undefined) return [value];
  const basic = /^basic$/i.test(scheme!) ? Buffer.from(token, "base64").toString("utf8").split(":") : [];
  return [value, token, ...basic];
}

/** The vendor API keys in an environment (each provider's key variable that is set). */
export const environmentKeys = (env: Env): string[] => LIVE_PROVIDERS.flatMap((p) => apiKeyFor(p, env) ?? []);

/**
 * Every credential a client sends: the vendor keys of its environment, its roles' credential
 * header values, and the userinfo and query values of their base URLs.
 */
export function clientCredentials(config: Pick<ResolvedClientConfig, "planner" | "critic">, env: Env): string[] {
  return [
    ...environmentKeys(env),
    ...ROLES.flatMap((r) => Object.entries(config[r].headers ?? {}).flatMap(([name, value]) => (isCredentialHeader(name, value) ? headerSecrets(value) : []))),
    ...ROLES.flatMap((r) => (config[r].baseUrl ? urlCredentials(config[r].baseUrl) : [])),
  ];
}
