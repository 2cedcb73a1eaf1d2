import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importCycles, importsOf, sources } from "../helpers/imports.ts";

const CODE = ["src", "harness", "scripts"].flatMap(sources);

describe("the module graph", () => {
  it("finds a cycle where there is one, and none where there is none", () => {
    const graph: Record<string, string[]> = { a: ["b"], b: ["c"], c: ["a"], d: ["a"], e: ["e"] };
    expect(importCycles(Object.keys(graph), (f) => graph[f]!)).toEqual([["a", "b", "c"], ["e"]]);
    // The walk reads the real files: a chain with no way back.
    expect(importCycles([join("src", "formats", "records.ts"), join("src", "formats", "findings.ts"), join("src", "formats", "enums.ts")])).toEqual([]);
  });

  it("has no import cycle among src/, harness/ and scripts/", () => {
    expect(importCycles(CODE).map((c) => c.join(" -> "))).toEqual([]);
  });

  it("has no import from src/ into harness/ or scripts/: the engine never reaches up into the harness", () => {
    const upward = sources("src").flatMap((file) =>
      importsOf(file)
        .filter((to) => !to.startsWith(`src/`))
        .map((to) => `${file} -> ${to}`),
    );
    expect(upward).toEqual([]);
  });
});
