import { createHash } from "node:crypto";

/**
 * Canonical JSON (DESIGN.md §7): object keys sorted by UTF-16 code unit, numbers and strings as
 * JSON.stringify writes them, no insignificant whitespace. Undefined object members are omitted,
 * as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const s = JSON.stringify(value);
    return s === undefined ? "null" : s;
  }
  if (!Object.isFrozen(value)) return write(value);
  // A deeply frozen object can never change, so its text is written once (a prompt's schema,
  // which every request of its role carries), not once per request.
  const known = frozenJson.get(value);
  if (known !== undefined) return known;
  const json = write(value);
  if (isDeeplyFrozen(value)) frozenJson.set(value, json);
  return json;
}

const frozenJson = new WeakMap<object, string>();

function write(value: object): string {
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (i > 0) out += ",";
      out += v === undefined ? "null" : canonicalJson(v);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  // The default sort compares UTF-16 code units, which is the canonical order.
  const keys = Object.keys(record).sort();
  let out = "{";
  let first = true;
  for (const k of keys) {
    const v = record[k];
    if (v === undefined) continue;
    if (!first) out += ",";
    first = false;
    out += quotedKey(k) + ":" + canonicalJson(v);
  }
  return `${out}}`;
}

/** Keys repeat (every task of every plan has the same few): each is quoted once. */
const quotedKeys = new Map<string, string>();
const MAX_QUOTED_KEYS = 4096;

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < MAX_QUOTED_KEYS) quotedKeys.set(key, quoted);
  }
  return quoted;
}

function isDeeplyFrozen(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeeplyFrozen);
}

/** Freeze an object and everything it holds (JSON-shaped data only), so canonicalJson may keep its text. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Lower-case hex SHA-256 of the UTF-8 text. */
export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function hashCanonical(value: unknown): string {
  return sha256(canonicalJson(value));
}
