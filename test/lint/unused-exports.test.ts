import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- the lint rule is plain JavaScript for ESLint's config to load unbuilt; it has no types
import { unusedExports } from "../../scripts/lint/unused-exports.js";

interface Unused {
  file: string;
  name: string;
  usedInOwnFile: boolean;
}

const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  allowImportingTsExtensions: true,
  noEmit: true,
  strict: true,
  types: [],
};

/**
 * A compiler host that parses TypeScript's own library declarations once for every program of this
 * file, as its language service shares them between programs: a program is then made in
 * milliseconds instead of a few hundred.
 */
function libSharingHost(): ts.CompilerHost {
  const host = ts.createCompilerHost(OPTIONS);
  const libDir = dirname(ts.getDefaultLibFilePath(OPTIONS));
  const libs = new Map<string, ts.SourceFile | undefined>();
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, ...rest) => {
    if (dirname(fileName) !== libDir) return read(fileName, ...rest);
    if (!libs.has(fileName)) libs.set(fileName, read(fileName, ...rest));
    return libs.get(fileName);
  };
  return host;
}
const host = libSharingHost();

/** The unused exports of a program made of `files`, as `file:name` (`+own` when its own file uses it). */
function unusedIn(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), "ft-unused-exports-"));
  // ES modules, as this repository's are: an `import()` of a CommonJS file has a synthesized type.
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const program = ts.createProgram({ rootNames: Object.keys(files).map((f) => join(dir, f)), options: OPTIONS, host });
  return (unusedExports(program) as Unused[]).map((u) => `${u.file.slice(dir.length + 1)}:${u.name}${u.usedInOwnFile ? "+own" : ""}`).sort();
}

describe("unused exports", () => {
  it("reports an export only its own file uses, and one nothing uses, but not one another file imports", () => {
    expect(
      unusedIn({
        "a.ts":
          "export const imported = 1;\nexport const onlyHere = 2;\nexport const nowhere = 3;\nexport type Shape = { n: number };\nexport const local: Shape = { n: onlyHere };\n",
        "b.ts": 'import { imported, type Shape } from "./a.ts";\nexport const b: Shape = { n: imported };\n',
        "main.ts": 'import { b } from "./b.ts";\nconsole.log(b);\n',
      }),
    ).toEqual(["a.ts:local", "a.ts:nowhere", "a.ts:onlyHere+own"]);
  });

  it("counts a use through a namespace, a destructured dynamic import, a property of one, and an interface a dynamic import is typed by", () => {
    expect(
      unusedIn({
        "ns.ts": "export const viaNamespace = 1;\nexport const unusedToo = 2;\n",
        "lazy.ts": "export const destructured = 1;\nexport const accessed = 2;\n",
        "command.ts": "export function register(): void {}\nexport function helper(): void {}\n",
        "main.ts": [
          'import * as ns from "./ns.ts";',
          "interface Command { register(): void }",
          'const load: () => Promise<Command> = () => import("./command.ts");',
          'const { destructured } = await import("./lazy.ts");',
          'const accessed = (await import("./lazy.ts")).accessed;',
          "console.log(ns.viaNamespace, load, destructured, accessed);",
        ].join("\n"),
      }),
    ).toEqual(["command.ts:helper", "ns.ts:unusedToo"]);
  });

  it("leaves a re-export to the file that declares what it names", () => {
    expect(
      unusedIn({
        "a.ts": "export const shared = 1;\n",
        "index.ts": 'export { shared } from "./a.ts";\n',
      }),
    ).toEqual([]);
  });
});
