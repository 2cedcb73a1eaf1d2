import type { parse } from "@bufbuild/cel";
import { isDyn, isNumeric, join, sameType, T, typeName, type CelType } from "./types.ts";

/**
 * A static checker for the CEL of pack rules, over the parsed syntax tree. The evaluator
 * (@bufbuild/cel 0.6) type-checks nothing before it runs, so a misspelt field or a string compared
 * with a number would surface only on the plans that reach it, or never. This checker knows the
 * types of the rule variables (src/packs/view.ts) and rejects, before any plan is judged: unknown
 * variables and fields, operators and functions applied to types they have no overload for, and
 * calls of functions the evaluator does not provide. What it cannot know is `dyn` and never an
 * error, so every expression it accepts is one the evaluator can run; runtime errors that remain
 * (a method on a null field) fail closed at evaluation.
 */

type ParsedExpr = ReturnType<typeof parse>;
export type Expr = NonNullable<ParsedExpr["expr"]>;

export class CheckError extends Error {
  constructor(
    readonly exprId: bigint,
    message: string,
  ) {
    super(message);
  }
}

type Scope = ReadonlyMap<string, CelType>;

const STRING_METHODS = new Set(["contains", "startsWith", "endsWith", "matches"]);
const ARITHMETIC = new Set(["_-_", "_*_", "_/_", "_%_"]);
const ORDERING = new Set(["_<_", "_<=_", "_>_", "_>=_"]);
const CONVERSIONS: Record<string, CelType> = { int: T.int, uint: T.uint, double: T.double, string: T.string, bool: T.bool, bytes: T.bytes, dyn: T.dyn, type: T.type };
const OPERATOR_NAMES: Record<string, string> = {
  "_&&_": "&&", "_||_": "||", "!_": "!", "-_": "-", "_==_": "==", "_!=_": "!=", "_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">=",
  "_+_": "+", "_-_": "-", "_*_": "*", "_/_": "/", "_%_": "%", "_[_]": "[]", "@in": "in", "_?_:_": "?:",
};

/** Comparable with == and !=: same type, numbers with numbers, null with anything, dyn with anything. */
function comparable(a: CelType, b: CelType): boolean {
  if (isDyn(a) || isDyn(b) || a.kind === "null" || b.kind === "null") return true;
  return (isNumeric(a) && isNumeric(b)) || sameType(a, b);
}

/** Ordered with < <= > >=: numbers (any mix), strings, bools, bytes. */
function ordered(a: CelType, b: CelType): boolean {
  if (isDyn(a) || isDyn(b)) return true;
  if (isNumeric(a) && isNumeric(b)) return true;
  return a.kind === b.kind && (a.kind === "string" || a.kind === "bool" || a.kind === "bytes");
}

export class Checker {
  constructor(private readonly globals: Scope) {}

  check(expr: Expr): CelType {
    return this.expr(expr, new Map());
  }

  private fail(e: Expr, message: string): never {
    throw new CheckError(e.id, message);
  }

  private overloadError(e: Expr, fn: string, args: readonly CelType[]): never {
    const name = OPERATOR_NAMES[fn] ?? fn;
    this.fail(e, `no operator or function '${name}' for (${args.map(typeName).join(", ")})`);
  }

  private expr(e: Expr, scope: Scope): CelType {
    const k = e.exprKind;
    switch (k.case) {
      case "constExpr":
        return this.constant(e, k.value.constantKind.case);
      case "identExpr": {
        const t = scope.get(k.value.name) ?? this.globals.get(k.value.name);
        if (t === undefined) this.fail(e, `unknown variable '${k.value.name}' (variables here: ${[...scope.keys(), ...this.globals.keys()].filter((n) => !n.startsWith("@")).join(", ")})`);
        return t;
      }
      case "selectExpr": {
        const operand = k.value.operand;
        if (!operand) this.fail(e, "selection without an operand");
        const field = this.select(e, this.expr(operand, scope), k.value.field);
        return k.value.testOnly ? T.bool : field;
      }
      case "callExpr":
        return this.call(e, k.value.function, k.value.target, k.value.args, scope);
      case "listExpr": {
        const elements = k.value.elements.map((x) => this.expr(x, scope));
        if (elements.length === 0) return { kind: "list", of: T.dyn, empty: true };
        return T.list(elements.reduce(join));
      }
      case "structExpr": {
        if (k.value.messageName !== "") this.fail(e, `message construction (${k.value.messageName}{...}) is not available in pack rules`);
        if (k.value.entries.length === 0) return T.map(T.dyn, T.dyn);
        let key: CelType | undefined;
        let value: CelType | undefined;
        for (const entry of k.value.entries) {
          if (entry.keyKind.case !== "mapKey" || !entry.value) this.fail(e, "a map literal needs key: value entries");
          const kt = this.expr(entry.keyKind.value, scope);
          const vt = this.expr(entry.value, scope);
          key = key === undefined ? kt : join(key, kt);
          value = value === undefined ? vt : join(value, vt);
        }
        return T.map(key!, value!);
      }
      case "comprehensionExpr":
        return this.comprehension(e, k.value, scope);
      default:
        this.fail(e, "an empty expression");
    }
  }

  private constant(e: Expr, kind: string | undefined): CelType {
    switch (kind) {
      case "boolValue":
        return T.bool;
      case "int64Value":
        return T.int;
      case "uint64Value":
        return T.uint;
      case "doubleValue":
        return T.double;
      case "stringValue":
        return T.string;
      case "bytesValue":
        return T.bytes;
      case "nullValue":
        return T.null;
      default:
        this.fail(e, `constants of kind ${kind ?? "(none)"} are not available in pack rules`);
    }
  }

  private select(e: Expr, operand: CelType, field: string): CelType {
    switch (operand.kind) {
      case "dyn":
        return T.dyn;
      case "object": {
        const t = operand.fields[field];
        if (t === undefined) {
          const known = Object.keys(operand.fields);
          this.fail(e, `unknown field '${field}' on ${operand.name} (${known.length ? `fields: ${known.join(", ")}` : "it has no fields: declare the attributes the pack reads"})`);
        }
        return t;
      }
      case "map":
        if (!isDyn(operand.key) && operand.key.kind !== "string") this.fail(e, `cannot select '${field}' from ${typeName(operand)}`);
        return operand.of;
      default:
        this.fail(e, `${typeName(operand)} has no field '${field}'`);
    }
  }

  private call(e: Expr, fn: string, target: Expr | undefined, argExprs: readonly Expr[], scope: Scope): CelType {
    const self = target ? this.expr(target, scope) : undefined;
    const args = argExprs.map((a) => this.expr(a, scope));
    const all = self ? [self, ...args] : args;
    const bool = (...xs: CelType[]) => xs.every((x) => isDyn(x) || x.kind === "bool");

    if (fn === "_&&_" || fn === "_||_") return bool(...all) && all.length === 2 ? T.bool : this.overloadError(e, fn, all);
    if (fn === "!_" || fn === "@not_strictly_false") return bool(...all) && all.length === 1 ? T.bool : this.overloadError(e, fn, all);
    if (fn === "_==_" || fn === "_!=_") return comparable(all[0]!, all[1]!) ? T.bool : this.overloadError(e, fn, all);
    if (ORDERING.has(fn)) return ordered(all[0]!, all[1]!) ? T.bool : this.overloadError(e, fn, all);
    if (fn === "_?_:_") return bool(all[0]!) ? join(all[1]!, all[2]!) : this.fail(e, `a condition must be a bool, not ${typeName(all[0]!)}`);
    if (fn === "-_") return isDyn(all[0]!) || all[0]!.kind === "int" || all[0]!.kind === "double" ? all[0]! : this.overloadError(e, fn, all);
    if (fn === "_+_") return this.plus(e, all[0]!, all[1]!);
    if (ARITHMETIC.has(fn)) {
      const [a, b] = all as [CelType, CelType];
      if (isDyn(a) || isDyn(b)) return isDyn(a) ? b : a;
      const fits = fn === "_%_" ? a.kind === b.kind && (a.kind === "int" || a.kind === "uint") : isNumeric(a) && a.kind === b.kind;
      return fits ? a : this.overloadError(e, fn, all);
    }
    if (fn === "_[_]") return this.index(e, all[0]!, all[1]!);
    if (fn === "@in") return this.membership(e, all[0]!, all[1]!);
    if (fn === "size") {
      const [x] = all;
      if (all.length !== 1 || !(isDyn(x!) || ["string", "bytes", "list", "map"].includes(x!.kind))) this.overloadError(e, fn, all);
      return T.int;
    }
    if (STRING_METHODS.has(fn)) {
      if (!self || args.length !== 1) this.fail(e, `'${fn}' is a method: write s.${fn}(x)`);
      if (!(isDyn(self) || self.kind === "string") || !(isDyn(args[0]!) || args[0]!.kind === "string")) this.overloadError(e, fn, all);
      return T.bool;
    }
    const conversion = CONVERSIONS[fn];
    if (conversion && !self && args.length === 1) return conversion;
    this.fail(e, `unknown function '${fn}' (pack rules have CEL's standard functions: size, contains, startsWith, endsWith, matches, int, uint, double, string, bool, bytes, dyn, type, and the macros has, all, exists, exists_one, map, filter)`);
  }

  private plus(e: Expr, a: CelType, b: CelType): CelType {
    if (isDyn(a) || isDyn(b)) return isDyn(a) ? b : a;
    if (a.kind === "list" && b.kind === "list") return join(a, b);
    if (a.kind === b.kind && (isNumeric(a) || a.kind === "string" || a.kind === "bytes")) return a;
    return this.overloadError(e, "_+_", [a, b]);
  }

  private index(e: Expr, container: CelType, key: CelType): CelType {
    if (isDyn(container)) return T.dyn;
    if (container.kind === "list") return isDyn(key) || key.kind === "int" || key.kind === "uint" ? container.of : this.overloadError(e, "_[_]", [container, key]);
    if (container.kind === "map") return comparable(container.key, key) ? container.of : this.overloadError(e, "_[_]", [container, key]);
    return this.overloadError(e, "_[_]", [container, key]);
  }

  private membership(e: Expr, element: CelType, container: CelType): CelType {
    if (isDyn(container)) return T.bool;
    if (container.kind === "list" && comparable(element, container.of)) return T.bool;
    if (container.kind === "map" && comparable(element, container.key)) return T.bool;
    return this.overloadError(e, "@in", [element, container]);
  }

  private comprehension(e: Expr, c: Extract<Expr["exprKind"], { case: "comprehensionExpr" }>["value"], scope: Scope): CelType {
    if (!c.iterRange || !c.accuInit || !c.loopCondition || !c.loopStep || !c.result) this.fail(e, "an incomplete comprehension");
    if (c.iterVar2 !== "") this.fail(e, "two-variable comprehensions are not available in pack rules");
    const range = this.expr(c.iterRange, scope);
    const element =
      range.kind === "list" ? range.of : range.kind === "map" ? range.key : isDyn(range) ? T.dyn : this.fail(c.iterRange, `cannot iterate over ${typeName(range)}`);
    const init = this.expr(c.accuInit, scope);
    const inner = (accu: CelType) => new Map([...scope, [c.iterVar, element], [c.accuVar, accu]]);
    const accu = join(init, this.expr(c.loopStep, inner(init)));
    const condition = this.expr(c.loopCondition, inner(accu));
    if (!isDyn(condition) && condition.kind !== "bool") this.fail(c.loopCondition, "a comprehension's condition must be a bool");
    return this.expr(c.result, new Map([...scope, [c.accuVar, accu]]));
  }
}
