/**
 * The two kinds of placeholder an engine manifest's strings hold: `{name}`, filled by fieldtest
 * per trial (or per worker slot), and `${VAR}`, `${VAR:-default}`, `${VAR:+alternative}`, read
 * from fieldtest's environment as a shell would. `{{` and `$$` stand for a literal `{` and `$`.
 * Pure: the values come in as maps.
 */

/** Variables an engine must never see: the vendors' keys stay in fieldtest's process; the engine gets a per-trial token. */
export const CREDENTIAL_VARIABLE = /(^|_)(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)($|_)/i;

const PLACEHOLDER = /\{\{|\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\+)((?:[^{}]|\{[^{}]*\})*))?\}|\{([a-z_][a-z0-9_.]*)\}/g;

export class TemplateError extends Error {}

/** What a string refers to, its `${...}` defaults included, in order of appearance: `{name}` placeholders and `${VAR}` variables. */
function referencesIn(text: string): { placeholders: string[]; variables: string[] } {
  const out = { placeholders: [] as string[], variables: [] as string[] };
  for (const m of text.matchAll(PLACEHOLDER)) {
    if (m[4] !== undefined) out.placeholders.push(m[4]);
    if (m[1] !== undefined) out.variables.push(m[1]);
    if (m[3] !== undefined) {
      const inner = referencesIn(m[3]);
      out.placeholders.push(...inner.placeholders);
      out.variables.push(...inner.variables);
    }
  }
  return out;
}

export const placeholdersIn = (text: string): string[] => referencesIn(text).placeholders;
export const variablesIn = (text: string): string[] => referencesIn(text).variables;

/**
 * The string with every placeholder filled. A `{name}` with no value is an error (a manifest is
 * checked against the names it may use before any trial runs); an unset or empty `${VAR}` is "",
 * as in a shell.
 */
export function expand(text: string, values: Readonly<Record<string, string>>, env: Readonly<Record<string, string | undefined>>): string {
  return text.replace(PLACEHOLDER, (whole, variable?: string, op?: string, word?: string, name?: string) => {
    if (whole === "{{") return "{";
    if (whole === "$$") return "$";
    if (name !== undefined) {
      const value = values[name];
      if (value === undefined) throw new TemplateError(`{${name}} is not a placeholder fieldtest fills here`);
      return value;
    }
    if (CREDENTIAL_VARIABLE.test(variable!)) {
      throw new TemplateError(`\${${variable}} looks like a credential: an engine never gets one (give it {planner.token} or {critic.token})`);
    }
    const set = env[variable!] !== undefined && env[variable!] !== "";
    if (op === ":-") return set ? env[variable!]! : expand(word ?? "", values, env);
    if (op === ":+") return set ? expand(word ?? "", values, env) : "";
    return set ? env[variable!]! : "";
  });
}
