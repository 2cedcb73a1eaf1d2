/**
 * Static types of CEL values as the pack checker sees them. `dyn` is "unknown here": it never
 * produces an error. `nullable` marks a value that may be null (an absent optional field).
 */
export type CelType =
  | { kind: "bool" | "int" | "uint" | "double" | "string" | "bytes" | "null" | "dyn" | "type"; nullable?: boolean }
  | { kind: "list"; of: CelType; nullable?: boolean; /** the empty list literal: it joins with any list */ empty?: boolean }
  | { kind: "map"; key: CelType; of: CelType; nullable?: boolean }
  | { kind: "object"; name: string; fields: Readonly<Record<string, CelType>>; nullable?: boolean };

export const T = {
  bool: { kind: "bool" },
  int: { kind: "int" },
  uint: { kind: "uint" },
  double: { kind: "double" },
  string: { kind: "string" },
  bytes: { kind: "bytes" },
  null: { kind: "null" },
  dyn: { kind: "dyn" },
  type: { kind: "type" },
  list: (of: CelType): CelType => ({ kind: "list", of }),
  map: (key: CelType, of: CelType): CelType => ({ kind: "map", key, of }),
  object: (name: string, fields: Record<string, CelType>): CelType => ({ kind: "object", name, fields }),
  nullable: (t: CelType): CelType => ({ ...t, nullable: true }),
} as const satisfies Record<string, CelType | ((...a: never[]) => CelType)>;

export function typeName(t: CelType): string {
  const base =
    t.kind === "list" ? `list(${typeName(t.of)})` : t.kind === "map" ? `map(${typeName(t.key)}, ${typeName(t.of)})` : t.kind === "object" ? t.name : t.kind;
  return t.nullable && t.kind !== "null" && t.kind !== "dyn" ? `${base} or null` : base;
}

export const isNumeric = (t: CelType) => t.kind === "int" || t.kind === "uint" || t.kind === "double";
export const isDyn = (t: CelType) => t.kind === "dyn";

/** Whether two types are the same, ignoring nullability. */
export function sameType(a: CelType, b: CelType): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "list" && b.kind === "list") return a.empty === true || b.empty === true || sameType(a.of, b.of);
  if (a.kind === "map" && b.kind === "map") return sameType(a.key, b.key) && sameType(a.of, b.of);
  if (a.kind === "object" && b.kind === "object") return a.name === b.name;
  return true;
}

/**
 * The type of a value that is one of a or b (a conditional's branches, an accumulator's steps):
 * null joins as nullability, the empty list literal takes the other list's element type, and
 * anything else that disagrees is dyn.
 */
export function join(a: CelType, b: CelType): CelType {
  if (a.kind === "null") return b.kind === "null" ? a : { ...b, nullable: true };
  if (b.kind === "null") return { ...a, nullable: true };
  if (a.kind === "dyn" || b.kind === "dyn") return T.dyn;
  const nullable = a.nullable === true || b.nullable === true ? { nullable: true } : {};
  if (a.kind === "list" && b.kind === "list") {
    if (a.empty) return { ...b, ...nullable };
    if (b.empty) return { ...a, ...nullable };
    return { kind: "list", of: join(a.of, b.of), ...nullable };
  }
  return sameType(a, b) ? { ...a, ...nullable } : T.dyn;
}
