import fc from "fast-check";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InputError, parseSource, validate } from "../../src/formats/load.ts";

/** JSON values whose keys include quotes, backslashes, colons and spaces (not `__proto__`, which YAML's toJS turns into a prototype). */
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(null, true, false, 0, -1.5, 1e21),
    fc.string({ unit: fc.constantFrom("a", '"', "\\", ":", " ", "\n", "é", "{") }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(
      fc.string({ unit: fc.constantFrom("k", '"', "\\", ":", " "), maxLength: 4 }).filter((k) => k !== "__proto__"),
      tie("value"),
      { maxKeys: 4 },
    ),
  ),
})).value;

const errorOf = (f: () => unknown): InputError => {
  try {
    f();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error("no InputError");
};

describe("parseSource", () => {
  it("reads any JSON text to the same data as the YAML parser, compact or indented", () => {
    fc.assert(
      fc.property(json, fc.boolean(), (value, indent) => {
        const text = JSON.stringify({ root: value }, null, indent ? 2 : undefined);
        expect(parseSource("x.json", text).data).toEqual(parseYaml(text));
      }),
    );
  });

  it("refuses a repeated key in JSON, as in YAML, naming the line", () => {
    const e = errorOf(() => parseSource("plan.json", '{\n  "id": "p",\n  "tasks": [],\n  "id": "q"\n}\n'));
    expect(e.message).toMatch(/^plan\.json:4: not valid YAML or JSON: .*unique/);
    // the same key in two different objects is no repeat
    expect(parseSource("ok.json", '{"a": {"id": 1}, "b": {"id": 2}, "c": "\\"id\\": 3"}').data).toEqual({ a: { id: 1 }, b: { id: 2 }, c: '"id": 3' });
  });

  it("names the line of a JSON schema error, as it does for YAML", () => {
    const text = '{\n  "id": "p",\n  "tasks": [\n    {"id": "a"},\n    {"id": 7}\n  ]\n}\n';
    const schema = z.strictObject({ id: z.string(), tasks: z.array(z.strictObject({ id: z.string() })) });
    expect(errorOf(() => validate(parseSource("plan.json", text), schema)).message).toMatch(/^plan\.json:5: tasks\[1\]\.id: /);
    const yaml = "id: p\ntasks:\n  - id: a\n  - id: 7\n";
    expect(errorOf(() => validate(parseSource("plan.yaml", yaml), schema)).message).toMatch(/^plan\.yaml:4: tasks\[1\]\.id: /);
  });

  it("reports broken JSON through the YAML parser with its line", () => {
    expect(errorOf(() => parseSource("plan.json", '{\n  "id": "p",\n  "tasks": [\n}\n')).message).toMatch(/^plan\.json:\d+: not valid YAML or JSON: /);
  });

  it("refuses data nested past what its readers recurse through, and a YAML alias bomb, as bad input naming the file", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(errorOf(() => validate(parseSource("plan.json", deep), z.object({}))).message).toBe("plan.json: nested too deeply to read");
    const levels = "abcdefg".split("").map(
      (name, i) =>
        `${name}: &${name} [${Array(9)
          .fill(i === 0 ? '"x"' : `*${"abcdefg"[i - 1]}`)
          .join(",")}]`,
    );
    const bomb = [...levels, `h: [${Array(9).fill("*g").join(",")}]`].join("\n");
    expect(errorOf(() => parseSource("plan.yaml", bomb)).message).toBe(
      "plan.yaml: not valid YAML: Excessive alias count indicates a resource exhaustion attack",
    );
  });
});
