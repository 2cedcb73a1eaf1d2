import { z } from "zod";
import { FAMILIES } from "../formats/enums.ts";
import { PACK_CODE_PATTERN, PACK_NAME_PATTERN } from "../formats/findings.ts";
import { ATTRIBUTE_NAME_PATTERN } from "../formats/plan.ts";

/** The value types a task attribute may have (docs/design.md §3 `attributes`). */
const ATTRIBUTE_TYPES = ["string", "number", "boolean", "string_list"] as const;
export type AttributeType = (typeof ATTRIBUTE_TYPES)[number];

/** An attribute a pack's rules read: its type, and what it means (the planner is told, when it should write it). */
const AttributeDeclSchema = z.strictObject({
  type: z.enum(ATTRIBUTE_TYPES),
  description: z.string().min(1),
});
export type AttributeDecl = z.output<typeof AttributeDeclSchema>;

/** What a rule is evaluated over: once per task (it reports that task), or once per plan (it reports no task). */
const RULE_SCOPES = ["task", "plan"] as const;
export type RuleScope = (typeof RULE_SCOPES)[number];

/**
 * One rule: a CEL expression (`when`) that is true when the plan breaks the rule. Its findings
 * are gate findings (gate `pack.<name>`, this code and family, severity blocker).
 */
const RuleSchema = z.strictObject({
  code: z.string().regex(PACK_CODE_PATTERN, "rule codes match ^[a-z][a-z0-9_]*$"),
  family: z.enum(FAMILIES),
  /** Why the rule exists, for the people who read the pack. */
  description: z.string().min(1),
  /** Standards the rule enforces (e.g. CWE-284), recorded for the reader. */
  references: z.array(z.string().min(1)).default([]),
  each: z.enum(RULE_SCOPES).default("task"),
  when: z.string().min(1),
  /** The finding's message; `{{ expr }}` placeholders are CEL expressions over the same variables. */
  message: z.string().min(1),
});
export type Rule = z.output<typeof RuleSchema>;

/** `<pack>/pack.yaml`: the manifest of a domain pack. */
export const PackManifestSchema = z.strictObject({
  name: z.string().regex(PACK_NAME_PATTERN, "pack names match ^[a-z][a-z0-9-]*$"),
  version: z.string().regex(/^\d+\.\d+\.\d+$/, "versions are MAJOR.MINOR.PATCH"),
  description: z.string().min(1),
  attributes: z.record(z.string().regex(ATTRIBUTE_NAME_PATTERN, "attribute names match ^[a-z][a-z0-9_]*$"), AttributeDeclSchema).default({}),
  rules: z.array(RuleSchema).min(1),
});
export type PackManifest = z.output<typeof PackManifestSchema>;
