import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../harness/package.ts";

/** The package a bare import specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

/** Package names the module's code imports (statically, dynamically or through require), not its type-only imports. */
function importedPackages(text: string): string[] {
  const specifiers = [
    ...[...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^;]*?\s+from\s+)?"([^"]+)"/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]!),
    ...[...text.matchAll(/\b(?:require|createRequire\([^)]*\))\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]!),
  ];
  return specifiers.filter((s) => !s.startsWith(".") && !s.startsWith("/") && !s.startsWith("node:") && !builtinModules.includes(s)).map(packageOf);
}

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(join(PACKAGE_ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => ext.test(f))
    .map((f) => join(dir, f));
}

describe("what the CLI runs needs only the package's dependencies", () => {
  it("src/, harness/ and bin/ import no dev dependency (an install without them still runs every command)", () => {
    const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    const runtime = [...files("src", /\.tsx?$/), ...files("harness", /\.tsx?$/), ...files("bin", /\.js$/)];
    const outside = runtime.flatMap((file) =>
      importedPackages(readFileSync(join(PACKAGE_ROOT, file), "utf8"))
        .filter((name) => !(name in pkg.dependencies))
        .map((name) => `${file}: ${name}`),
    );
    expect(outside).toEqual([]);
    // The reader sees the shapes it must: a value import, a dynamic import and a require each name their package.
    expect(importedPackages('import { z } from "zod";\nimport type { X } from "ink";\nawait import("openai");\ncreateRequire(u)("yaml");')).toEqual([
      "zod",
      "openai",
      "yaml",
    ]);
  });
});
