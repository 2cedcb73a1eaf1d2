import { describe, expect, it } from "vitest";
import { canonicalJson, deepFreeze, sha256 } from "../src/canonical.ts";

describe("canonicalJson", () => {
  it("sorts keys by code unit and drops whitespace", () => {
    expect(canonicalJson({ b: 1, a: [1, "x", null], B: { z: true, y: 1.5 } })).toBe(
      '{"B":{"y":1.5,"z":true},"a":[1,"x",null],"b":1}',
    );
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
