import { existsSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { defineConfig, type Plugin } from "vitest/config";
import { NODE_FLAGS } from "./test/helpers/node-flags.ts";

const root = import.meta.dirname;
const dist = join(root, "dist");

/**
 * Tests import the engine and harness as TypeScript sources; each is loaded from its compiled
 * module in dist/ (built by test/setup/build.ts) by Node itself, untransformed, as the CLI runs
 * it: vitest transforms only the test files.
 */
function compiledSources(): Plugin {
  return {
    name: "fieldtest-compiled-sources",
    enforce: "pre",
    resolveId(source, importer) {
      if (!importer || !/\.tsx?$/.test(source) || !(source.startsWith(".") || source.startsWith("/"))) return null;
      const rel = relative(root, resolve(importer, "..", source));
      if (!(rel.startsWith(`src${sep}`) || rel.startsWith(`harness${sep}`))) return null;
      const compiled = join(dist, rel.replace(/\.tsx?$/, ".js"));
      // One copy of each module: a source loaded beside its compiled twin would split their state.
      if (!existsSync(compiled)) throw new Error(`${compiled} is missing: the build (test/setup/build.ts) did not write it`);
      return { id: compiled, external: true };
    },
  };
}

export default defineConfig({
  plugins: [compiledSources()],
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/setup/build.ts", "test/setup/temp-root.ts"],
    // scripts/bench-tests.ts asks for each file's CPU time.
    setupFiles: ["test/setup/zod-compile.ts", ...(process.env.FIELDTEST_CPU_BY_FILE ? ["test/setup/cpu-by-file.ts"] : [])],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One worker per core: each worker imports and transforms the whole graph again (about 3 s of
    // CPU), and since the CLI tests run in process few files wait on a child any more (three workers
    // measured 66 and 70 s of wall against 63 and 61 s for two, run alternately).
    maxWorkers: 2,
    execArgv: NODE_FLAGS,
    // Files share their worker's module cache instead of importing the engine afresh each time.
    isolate: false,
    // This repository's dist/ only: a clone that sits under some other dist/ folder keeps its tests transformed.
    server: { deps: { external: [/\/node_modules\//, new RegExp(`^${dist.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/`)] } },
  },
});
