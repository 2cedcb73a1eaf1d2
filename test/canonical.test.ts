import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, deepFreeze, sha256 } from "../src/canonical.ts";

describe("canonicalJson", () => {
  it("sorts keys by code unit and drops whitespace", () => {
    expect(canonicalJson({ b: 1, a: [1, "x", null], B: { z: true, y: 1.5 } })).toBe('{"B":{"y":1.5,"z":true},"a":[1,"x",null],"b":1}');
  });
  it("omits undefined members like JSON.stringify", () => {
    expect(canonicalJson({ a: undefined, b: 2 })).toBe('{"b":2}');
  });
  it("is independent of key insertion order", () => {
    expect(canonicalJson({ x: 1, y: { p: 1, q: 2 } })).toBe(canonicalJson({ y: { q: 2, p: 1 }, x: 1 }));
  });
});

describe("sha256", () => {
  it("matches the known digest of 'abc'", () => {
    expect(sha256("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("canonicalJson of frozen data", () => {
  it("writes a deeply frozen object as it writes a mutable copy, and a frozen shell over mutable data afresh", () => {
    const data = { b: [1, { d: "x", c: null }], a: { e: undefined, f: 2 } };
    const frozen = deepFreeze(structuredClone(data));
    expect(canonicalJson(frozen)).toBe(canonicalJson(data));
    expect(canonicalJson({ wrap: frozen })).toBe(canonicalJson({ wrap: data }));
    const inner = { n: 1 };
    const shell = Object.freeze({ inner });
    expect(canonicalJson(shell)).toBe('{"inner":{"n":1}}');
    inner.n = 2; // the shell is frozen, what it holds is not: no stale text
    expect(canonicalJson(shell)).toBe('{"inner":{"n":2}}');
  });
});

/** The definition, written plainly: sorted keys, JSON.stringify for everything else. */
function reference(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : reference(v))).join(",")}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((k) => `${JSON.stringify(k)}:${reference((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(",")}}`;
}

describe("canonicalJson against its definition", () => {
  it("agrees on any JSON value, frozen or not, integer-like and escaped keys included", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, freeze) => {
        const input = freeze ? deepFreeze(structuredClone(value)) : value;
        expect(canonicalJson(input)).toBe(reference(value));
      }),
      { numRuns: 300 },
    );
    expect(canonicalJson({ 10: 1, 9: 2, b: 3, "\u00e9": 4, '"q"': 5 })).toBe(reference({ 10: 1, 9: 2, b: 3, "\u00e9": 4, '"q"': 5 }));
  });

  it("orders any keys by code unit, few (sorted in place) or many (the library sort), astral and lone surrogates included", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: "binary", maxLength: 4 }), fc.integer(), { maxKeys: 80 }), (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 300 },
    );
    // "\uFFFF" is after "\uD83D\uDE00" by code unit, before it by code point.
    expect(canonicalJson({ "\uFFFF": 1, "\u{1F600}": 2, a: 3 })).toBe('{"a":3,"\u{1F600}":2,"\uFFFF":1}');
  });

  it("agrees on partly frozen values, and a text it keeps never outlives a change below it", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.infiniteStream(fc.boolean()), (value, coins) => {
        const input = structuredClone(value);
        const mutable: object[] = [];
        // Children first: a frozen object may hold mutable ones (a frozen shell), at any depth.
        const freezeSome = (v: unknown): void => {
          if (v === null || typeof v !== "object") return;
          for (const child of Object.values(v)) freezeSome(child);
          if (coins.next().value) Object.freeze(v);
          else mutable.push(v);
        };
        freezeSome(input);
        expect(canonicalJson(input)).toBe(reference(input));
        for (const m of mutable) {
          if (Array.isArray(m)) m.push(7);
          else (m as Record<string, unknown>).zz_added = 7;
        }
        expect(canonicalJson(input)).toBe(reference(input));
      }),
      { numRuns: 300 },
    );
  });
});
