import { createHash } from "node:crypto";

/**
 * Canonical JSON (docs/design.md §7): object keys sorted by UTF-16 code unit, numbers and strings as
 * JSON.stringify writes them, no insignificant whitespace. Undefined object members are omitted,
 * as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return scalarJson(value);
  const known = frozenJson.get(value);
  if (known !== undefined) return known;
  const walk: Walk = { deeplyFrozen: true };
  const json = write(value, walk);
  // A deeply frozen object can never change, so its text is written once (a prompt's schema,
  // which every request of its role carries), not once per request.
  if (walk.deeplyFrozen) frozenJson.set(value, json);
  return json;
}

/** Only deeply frozen objects are keys, each the top of its frozen part of a value: memory stays linear. */
const frozenJson = new WeakMap<object, string>();

/** What one write has seen so far: whether everything it wrote is frozen. */
interface Walk {
  deeplyFrozen: boolean;
}

const scalarJson = (value: unknown): string => JSON.stringify(value) ?? "null";

/** One pass over the value, whether it is frozen read along the way (checking it apart would be quadratic in depth). */
function write(value: object, walk: Walk): string {
  if (!Object.isFrozen(value)) walk.deeplyFrozen = false;
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ",";
      out += member(value[i], walk);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = sortedKeys(record);
  let out = "{";
  let first = true;
  for (const k of keys) {
    const v = record[k];
    if (v === undefined) continue;
    if (!first) out += ",";
    first = false;
    out += quotedKey(k) + ":" + member(v, walk);
  }
  return `${out}}`;
}

/**
 * An object's keys in canonical order: by UTF-16 code unit, as `<` compares strings and the
 * default sort orders them. Objects here have a few keys (a task has about a dozen), which an
 * insertion sort orders in place; Array.prototype.sort copies them into a work array first, and
 * that copy was a tenth of everything a sweep allocated. Many keys take the library sort.
 */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
  return keys;
}

function member(value: unknown, walk: Walk): string {
  if (value === null || typeof value !== "object") return scalarJson(value);
  // Past a part that is frozen so far, the member may be the top of a frozen part of its own, kept
  // apart (canonicalJson looks it up and keeps it). Inside one, it extends that part. (A frozen
  // member written inside a part that then turns out mutable is not kept: deepFreeze never makes
  // such a part.)
  if (!walk.deeplyFrozen) return canonicalJson(value);
  return frozenJson.get(value) ?? write(value, walk);
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
