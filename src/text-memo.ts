/**
 * A small memo keyed by text, for figures the hot path derives again and again from the same few
 * texts (a role's system prompt, template, schema). Bounded: past `max` keys it starts afresh, so
 * a long run over many distinct texts never grows it without end.
 */
export function textMemo<T>(max = 64): (key: string, compute: () => T) => T {
  const known = new Map<string, T>();
  return (key, compute) => {
    if (known.has(key)) return known.get(key)!;
    if (known.size >= max) known.clear();
    const value = compute();
    known.set(key, value);
    return value;
  };
}
