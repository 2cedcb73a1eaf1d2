import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../harness/package.ts";

/** Every TypeScript file under a folder of the package. */
function sources(dir: string): string[] {
  return readdirSync(join(PACKAGE_ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(dir, f));
}

describe("the CEL runtime is reached through src/packs/cel.ts only", () => {
  it("no other module imports a value from @bufbuild/cel (types only), so commands that judge no pack never load it and one copy serves all", () => {
    const valueImports = [...sources("src"), ...sources("harness")]
      .filter((file) => file !== join("src", "packs", "cel.ts"))
      .filter((file) => /^import\s+(?!type\b)[^;]*from\s+"@bufbuild\/cel(\/[^"]*)?"/m.test(readFileSync(join(PACKAGE_ROOT, file), "utf8")))
      .map((file) => relative(".", file));
    expect(valueImports).toEqual([]);
  });
});
