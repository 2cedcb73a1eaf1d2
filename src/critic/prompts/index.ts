import { readFileSync } from "node:fs";
import { deepFreeze, hashCanonical, sha256 } from "../../canonical.ts";

/**
 * The versioned prompt files of both roles. Each file's hash feeds the decision context and the
 * run manifest, so a change of wording is a change of configuration. To change a prompt, add a
 * new version beside the old one and point the descriptor at it.
 */

function promptFile(name: string): string {
  return readFileSync(new URL(`./${name}`, import.meta.url), "utf8");
}

interface UserTemplate {
  text: string;
  sha256: string;
}

export interface PromptDescriptor<T extends string> {
  role: "critic" | "planner";
  version: string;
  system: string;
  system_sha256: string;
  templates: Record<T, UserTemplate>;
  /** Name and bare JSON Schema of the structured output. */
  schemaName: string;
  schema: Record<string, unknown>;
  schema_sha256: string;
}

function template(name: string): UserTemplate {
  const text = promptFile(name);
  return { text, sha256: sha256(text) };
}

function descriptor<T extends string>(role: "critic" | "planner", version: string, templates: Record<T, string>, schemaName: string): PromptDescriptor<T> {
  const system = promptFile(`${role}-${version}.system.md`);
  // Frozen: every request of the role carries it, and canonicalJson writes a frozen object once.
  const schema = deepFreeze(JSON.parse(promptFile(`${role}-${version}.schema.json`)) as Record<string, unknown>);
  const loaded = Object.fromEntries(Object.entries<string>(templates).map(([key, file]) => [key, template(file)])) as Record<T, UserTemplate>;
  return { role, version, system, system_sha256: sha256(system), templates: loaded, schemaName, schema, schema_sha256: hashCanonical(schema) };
}

export const CRITIC_PROMPT = descriptor("critic", "v1", { review: "critic-v1.user.md" }, "critic_findings");

export const PLANNER_PROMPT = descriptor(
  "planner",
  "v1",
  { decompose: "planner-v1.decompose.md", revise: "planner-v1.revise.md", restart: "planner-v1.restart.md" },
  "change_plan",
);

/**
 * Fill `{{name}}` placeholders. A placeholder without a value is a programming error, not bad
 * input, so it throws.
 */
export function renderTemplate(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`prompt template needs a value for {{${name}}}`);
    return value;
  });
}
