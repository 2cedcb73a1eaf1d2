/**
 * Key paths such as `tasks[3].rollback.trigger` or `goal.constraints.tools`: the notation that
 * fixtures use in `differs_in` and that InputError messages print. Pure functions over plain
 * JSON-like values; nothing here mutates its input.
 */

export type Segment = string | number;

const FIRST = /([A-Za-z_][A-Za-z0-9_]*)/y;
const NEXT = /\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/y;

/** Segments of a key path, or null when the text is not one (empty, stray characters, a leading dot or index). */
export function parseKeyPath(text: string): Segment[] | null {
  FIRST.lastIndex = 0;
  const head = FIRST.exec(text);
  if (!head) return null;
  const out: Segment[] = [head[1]!];
  NEXT.lastIndex = FIRST.lastIndex;
  while (NEXT.lastIndex < text.length) {
    const m = NEXT.exec(text);
    if (!m) return null;
    out.push(m[1] !== undefined ? m[1] : Number(m[2]));
  }
  return out;
}

function child(value: unknown, key: Segment): unknown {
  if (typeof key === "number") return Array.isArray(value) ? value[key] : undefined;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  return (value as Record<string, unknown>)[key];
}

/** The value at the path, or undefined when any step of it is absent. */
export function valueAt(value: unknown, path: readonly Segment[]): unknown {
  return path.reduce<unknown>(child, value);
}

/**
 * A copy of `value` without what the path names: an object key is deleted, an array element is
 * spliced out (so the elements after it move up). Where the path is absent the copy is unchanged.
 */
export function withoutPath(value: unknown, path: readonly Segment[]): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (typeof head === "number") {
    if (!Array.isArray(value) || head >= value.length) return value;
    const copy = [...value];
    if (rest.length === 0) copy.splice(head, 1);
    else copy[head] = withoutPath(copy[head], rest);
    return copy;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value) || !(head in value)) return value;
  const copy = { ...(value as Record<string, unknown>) };
  if (rest.length === 0) delete copy[head];
  else copy[head] = withoutPath(copy[head], rest);
  return copy;
}
