import { hashCanonical, sha256 } from "../canonical.ts";
import { PLANNER_PROMPT } from "../critic/prompts/index.ts";
import type { CompiledPack } from "./compile.ts";
import type { AttributeDecl, AttributeType } from "./schema.ts";

/**
 * What the planner is told about task attributes. Only packs read attributes, so the planner's
 * prompt and schema name them only when packs that declare some are enabled: without packs the
 * request (and so every prompt and schema hash) is the one the versioned prompt files give.
 */

/** Every attribute the enabled packs declare, by name (loadPacks has refused conflicting types). */
export function declaredAttributes(packs: readonly CompiledPack[]): Record<string, AttributeDecl> {
  const out: Record<string, AttributeDecl> = {};
  for (const pack of packs) for (const [name, decl] of Object.entries(pack.attributes)) out[name] ??= decl;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const JSON_TYPES: Record<AttributeType, unknown> = {
  string: { type: ["string", "null"] },
  number: { type: ["number", "null"] },
  boolean: { type: ["boolean", "null"] },
  string_list: { type: ["array", "null"], items: { type: "string" } },
};

const TYPE_WORDS: Record<AttributeType, string> = { string: "a string", number: "a number", boolean: "true or false", string_list: "a list of strings" };

/** The paragraph appended to the planner's system prompt: each attribute, its type and meaning. */
function attributeInstructions(attributes: Readonly<Record<string, AttributeDecl>>): string {
  const lines = Object.entries(attributes).map(([name, d]) => `- "${name}" (${TYPE_WORDS[d.type]}): ${d.description}`);
  return [
    "",
    'Each task may also have "attributes": an object of typed facts that policy rules read. Set every',
    "attribute below that applies to the task, with its true value; leave out the ones that do not apply:",
    "",
    ...lines,
    "",
  ].join("\n");
}

type JsonObject = Record<string, unknown>;

/** The planner's output schema with `attributes` on every task (the declared names, typed, nothing else). */
function schemaWithAttributes(schema: JsonObject, attributes: Readonly<Record<string, AttributeDecl>>): JsonObject {
  const tasks = (schema.properties as JsonObject).tasks as JsonObject;
  const item = tasks.items as JsonObject;
  const properties = Object.fromEntries(Object.entries(attributes).map(([name, d]) => [name, JSON_TYPES[d.type]]));
  return {
    ...schema,
    properties: {
      ...(schema.properties as JsonObject),
      tasks: {
        ...tasks,
        items: { ...item, properties: { ...(item.properties as JsonObject), attributes: { type: ["object", "null"], additionalProperties: false, properties } } },
      },
    },
  };
}

/**
 * The planner's prompt descriptor for the attributes the enabled packs declare: the versioned one
 * when there are none, else its system text with the attribute instructions and its schema with
 * `attributes`, hashed anew (what the requests send is what the manifest records).
 */
export function plannerPromptFor(attributes: Readonly<Record<string, AttributeDecl>>): typeof PLANNER_PROMPT {
  if (Object.keys(attributes).length === 0) return PLANNER_PROMPT;
  const system = PLANNER_PROMPT.system + attributeInstructions(attributes);
  const schema = schemaWithAttributes(PLANNER_PROMPT.schema, attributes);
  return { ...PLANNER_PROMPT, system, system_sha256: sha256(system), schema, schema_sha256: hashCanonical(schema) };
}
