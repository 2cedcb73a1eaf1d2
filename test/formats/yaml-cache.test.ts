import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../harness/package.ts";
import { parseSource } from "../../src/formats/load.ts";
import { jsonExact, keepParsedYaml, keepYaml, keptYaml } from "../../src/formats/yaml-cache.ts";

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), "ft-yaml-cache-")), "kept");
  keepParsedYaml(dir);
});
afterEach(() => keepParsedYaml(undefined));

/** A YAML text no other test parses, so the loader's in-memory cache cannot answer for it. */
const fresh = (body: string) => `# ${Math.random()}\n${body}`;

describe("parsed YAML kept between processes", () => {
  it("JSON-exact values only: what JSON.parse(JSON.stringify(v)) would change is refused", () => {
    expect([null, "x", true, 0, 1.5, [], {}, { a: [1, { b: null }] }].map(jsonExact)).toEqual(Array(8).fill(true));
    expect([Infinity, NaN, -0, undefined, new Date(0), new Map(), [1, undefined], { a: () => 1 }].map(jsonExact)).toEqual(Array(8).fill(false));
  });

  it("every corpus file kept and read back is the parser's value", () => {
    const files = readdirSync(join(PACKAGE_ROOT, "corpus"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".yaml"));
    expect(files.length).toBeGreaterThan(200);
    for (const f of files) {
      const text = readFileSync(join(PACKAGE_ROOT, "corpus", f), "utf8");
      keepYaml(text, parse(text));
      expect(keptYaml(text), f).toEqual({ value: parse(text) });
    }
  });

  it("the loader answers a kept text from its entry without parsing, and keeps what it parses", () => {
    const kept = fresh("a: 1\n");
    keepYaml(kept, { a: "from the entry" });
    expect(parseSource("x.yaml", kept).data).toEqual({ a: "from the entry" });

    const parsed = fresh("b: [1, 2]\n");
    expect(parseSource("y.yaml", parsed).data).toEqual({ b: [1, 2] });
    expect(keptYaml(parsed)).toEqual({ value: { b: [1, 2] } });
  });

  it("an entry that cannot be read is parsed again; a value JSON would change is never kept", () => {
    const text = fresh("c: true\n");
    keepYaml(text, { c: "stale" });
    for (const f of readdirSync(dir)) writeFileSync(join(dir, f), "{ torn");
    expect(parseSource("z.yaml", text).data).toEqual({ c: true });

    const infinite = fresh("d: .inf\n");
    expect(parseSource("w.yaml", infinite).data).toEqual({ d: Infinity });
    expect(keptYaml(infinite)).toBeUndefined();
  });

  it("a YAML syntax error is reported with its line and keeps nothing", () => {
    const broken = fresh("e: [1, 2\n");
    expect(() => parseSource("v.yaml", broken)).toThrow(/v\.yaml/);
    expect(keptYaml(broken)).toBeUndefined();
  });

  it("off, nothing is kept", () => {
    keepParsedYaml(undefined);
    const text = fresh("f: 1\n");
    parseSource("u.yaml", text);
    keepParsedYaml(dir);
    expect(keptYaml(text)).toBeUndefined();
  });
});
