import type { CelEnv, parse } from "@bufbuild/cel";
import type { CanaryFile } from "../formats/canary.ts";
import { cel } from "./cel.ts";
import type { Family } from "../formats/enums.ts";
import { GATE_CODE_NAMES, type PackGateId } from "../formats/findings.ts";
import { InputError, isStackOverflow } from "../formats/load.ts";
import { CheckError, Checker, type Expr } from "./typecheck.ts";
import { typeName, type CelType } from "./types.ts";
import type { AttributeDecl, PackManifest, Rule, RuleScope } from "./schema.ts";
import { viewTypes } from "./view.ts";

/** A compiled CEL program: bindings in, a CEL value (or a CelError value) out. Never throws on data. */
type Program = (bindings: Record<string, unknown>) => unknown;

export interface CompiledRule {
  code: string;
  family: Family;
  each: RuleScope;
  description: string;
  references: string[];
  when: Program;
  /** The message template: literal text and CEL placeholders, in order. */
  message: (string | Program)[];
}

/** A pack ready to judge plans: its rules compiled and type-checked, its canaries parsed. */
export interface CompiledPack {
  name: string;
  version: string;
  /** Canonical SHA-256 of the manifest and the canaries as parsed: any change of content moves it. */
  hash: string;
  gate: PackGateId;
  attributes: Readonly<Record<string, AttributeDecl>>;
  rules: CompiledRule[];
  /** `<pack>/canaries/<file>` with its content. */
  canaries: { name: string; canary: CanaryFile }[];
}

/** Codes a rule may not take: the built-in gates' (a pack never speaks for a gate) and the pack's own check of attribute types. */
export const MISTYPED_ATTRIBUTE_CODE = "attribute_mistyped";
export const MISNAMED_ATTRIBUTE_CODE = "attribute_misnamed";
/** The pack's own attribute checks: a value of the wrong type, a name a letter or a suffix away from a declared one. */
export const ATTRIBUTE_CODES: ReadonlySet<string> = new Set([MISTYPED_ATTRIBUTE_CODE, MISNAMED_ATTRIBUTE_CODE]);
const RESERVED_CODES: ReadonlySet<string> = new Set([...GATE_CODE_NAMES, ...ATTRIBUTE_CODES]);

/** Where a manifest came from, so that errors name the file, the key path and the line. */
interface ManifestSource {
  file: string;
  lineOf(path: readonly PropertyKey[]): number | undefined;
}

// One environment for every rule: the standard library only (no extension can load code).
let env: CelEnv | undefined;
const environment = (): CelEnv => (env ??= cel().celEnv());

/** `line:column` (1-based) of an offset into a field's text. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `${before.length}:${before[before.length - 1]!.length + 1}`;
}

/** The offset of a 1-based line and column (the parser's error location). */
function offsetOf(text: string, line: number, column: number): number {
  return text.split("\n").slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + column - 1;
}

interface ParseFailure {
  rawMessage: string;
  location: { start: { line: number; column: number } };
}
const isParseFailure = (e: unknown): e is ParseFailure =>
  e instanceof Error && typeof (e as Partial<ParseFailure>).rawMessage === "string" && typeof (e as Partial<ParseFailure>).location?.start?.line === "number";

/**
 * Parse and type-check one CEL expression against the rule's variables; a syntax error, an
 * unknown variable or field, or a type error is an InputError naming the manifest file, the key
 * path (`rules[2].when`), the rule and the position inside the expression.
 */
function compileExpression(
  text: string,
  variables: ReadonlyMap<string, CelType>,
  where: { source: ManifestSource; path: (string | number)[]; rule: string },
  expect: "bool" | "any",
  /** Where the expression sits in the field's text (a message placeholder), so positions are the field's. */
  within: { field: string; at: number } = { field: text, at: 0 },
): Program {
  const at = (offset: number) => position(within.field, within.at + offset);
  const fail = (pos: string, message: string): never => {
    const path = where.path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
    throw new InputError(where.source.file, path, `rule ${where.rule}: at ${pos}: ${message}`, where.source.lineOf(where.path));
  };
  // The parser, checker and planner recurse through the expression: one nested thousands deep overflows the stack.
  const shallow = <T>(step: () => T): T => {
    try {
      return step();
    } catch (e) {
      if (isStackOverflow(e)) return fail(at(0), "the expression is nested too deeply");
      throw e;
    }
  };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = shallow(() => cel().parse(text));
  } catch (e) {
    if (isParseFailure(e)) return fail(at(offsetOf(text, e.location.start.line, e.location.start.column)), `syntax error: ${e.rawMessage}`);
    throw e;
  }
  const expr = parsed.expr as Expr | undefined;
  if (!expr) return fail(at(0), "an empty expression");
  const offsets = (parsed.sourceInfo?.positions ?? {}) as Record<string, number>;
  try {
    const type = shallow(() => new Checker(variables).check(expr));
    if (expect === "bool" && type.kind !== "bool" && type.kind !== "dyn") fail(at(0), `a rule's condition must be a bool, not ${typeName(type)}`);
  } catch (e) {
    if (e instanceof CheckError) return fail(at(offsets[String(e.exprId)] ?? 0), e.message);
    throw e;
  }
  const program = shallow(() => cel().plan(environment(), parsed));
  // The views are plain objects, lists, strings, bigints, numbers, booleans and nulls: CEL inputs all.
  return (bindings) => program(bindings as Parameters<typeof program>[0]);
}

const PLACEHOLDER = /\{\{(.*?)\}\}/gs;

function compileMessage(template: string, variables: ReadonlyMap<string, CelType>, where: { source: ManifestSource; path: (string | number)[]; rule: string }): (string | Program)[] {
  const parts: (string | Program)[] = [];
  let last = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    if (m.index > last) parts.push(template.slice(last, m.index));
    const inner = m[1]!;
    const start = m.index + 2 + (inner.length - inner.trimStart().length);
    parts.push(compileExpression(inner.trim(), variables, where, "any", { field: template, at: start }));
    last = m.index + m[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  return parts;
}

/** The variables a rule sees: goal and plan, and task for per-task rules. */
function ruleVariables(attributes: Readonly<Record<string, AttributeDecl>>, each: RuleScope): ReadonlyMap<string, CelType> {
  const types = viewTypes(attributes);
  return new Map<string, CelType>([
    ["goal", types.goal],
    ["plan", types.plan],
    ...(each === "task" ? [["task", types.task] as [string, CelType]] : []),
  ]);
}

function compileRule(rule: Rule, index: number, attributes: Readonly<Record<string, AttributeDecl>>, source: ManifestSource): CompiledRule {
  const variables = ruleVariables(attributes, rule.each);
  const where = (key: string) => ({ source, path: ["rules", index, key], rule: rule.code });
  return {
    code: rule.code,
    family: rule.family,
    each: rule.each,
    description: rule.description,
    references: rule.references,
    when: compileExpression(rule.when, variables, where("when"), "bool"),
    message: compileMessage(rule.message, variables, where("message")),
  };
}

/** Compile a parsed manifest (pure): every rule's condition and message, checked before any plan is judged. */
export function compileRules(manifest: PackManifest, source: ManifestSource): CompiledRule[] {
  const seen = new Set<string>();
  return manifest.rules.map((rule, i) => {
    const at = (detail: string): never => {
      throw new InputError(source.file, `rules[${i}].code`, detail, source.lineOf(["rules", i, "code"]));
    };
    if (RESERVED_CODES.has(rule.code)) at(`"${rule.code}" is ${ATTRIBUTE_CODES.has(rule.code) ? "the pack's own attribute check" : "a built-in gate code"}; choose another code`);
    if (seen.has(rule.code)) at(`"${rule.code}" is used by two rules of the pack`);
    seen.add(rule.code);
    return compileRule(rule, i, manifest.attributes, source);
  });
}

/** A CEL value as message text: lists joined with ", ", null as "none", an error as what went wrong (never a silent placeholder). */
export function celText(value: unknown): string {
  if (value === null || value === undefined) return "none";
  if (cel().isCelList(value)) return [...value].map(celText).join(", ");
  if (Array.isArray(value)) return value.map(celText).join(", ");
  if (cel().isCelError(value)) return `(error: ${value.message})`;
  if (typeof value === "object") return JSON.stringify(value);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- only primitives (and functions) are left: objects were printed as JSON above
  return String(value);
}

