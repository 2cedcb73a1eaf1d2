// Last step of `npm run build` (after tsc and build-assets): bundles the CLI's compiled modules
// into dist/bundle/, which `bin/fieldtest.js` runs. Node then reads a few dozen files instead of
// ~470 (zod alone is 96 modules, the OpenAI SDK 154), which is most of a command's start-up;
// each command and each SDK stays its own chunk, loaded only when asked for. The unbundled build
// in dist/ stays what the tests import; test/cli/bin.test.ts checks that the binary prints and
// exits as the in-process CLI does.
//
//   node dist/scripts/bundle.js [--if-stale]   (--if-stale: skip when the bundle is newer than the tsc build)
import { existsSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { build, type Plugin } from "rolldown";
import { PACKAGE_ROOT } from "../harness/package.ts";

const OUT_DIR = join(PACKAGE_ROOT, "dist", "bundle");
/** Each entry becomes dist/bundle/<name>.js; they share their chunks. */
const ENTRIES: Record<string, string> = {
  main: join(PACKAGE_ROOT, "dist", "harness", "cli", "main.js"),
  // The HTTP thread's script (src/providers/send-thread/thread.ts starts it), which loads the SDK chunks main has.
  "send-thread-worker": join(PACKAGE_ROOT, "dist", "src", "providers", "send-thread", "worker.js"),
};
const ENTRY_NAMES = new Map(Object.entries(ENTRIES).map(([name, file]) => [file, name]));
const TSC_STAMP = join(PACKAGE_ROOT, "dist", ".tsbuildinfo");
const BUNDLE_MAIN = join(OUT_DIR, "main.js");

/**
 * Every module keeps its own URL: `import.meta.url` in module M becomes M's file in dist/ (or
 * node_modules/), written relative to the bundle, so the assets a module finds beside itself
 * (prompts, the price table, sim profiles) and the packages it requires lazily resolve exactly
 * as they do unbundled. The one exception is a module's URL of another entry
 * (`new URL("./x.js", import.meta.url)`), which becomes that entry's bundle, beside every chunk.
 */
const keepModuleUrls: Plugin = {
  name: "fieldtest-keep-module-urls",
  transform(code, id) {
    if (id.startsWith("\0") || !code.includes("import.meta.url")) return null;
    const own = relative(OUT_DIR, id).split("\\").join("/");
    const rewritten = code.replace(/new URL\("\.\/([\w.-]+)", import\.meta\.url\)|import\.meta\.url/g, (match, file: string | undefined) => {
      const entry = file === undefined ? undefined : ENTRY_NAMES.get(join(dirname(id), file));
      if (entry !== undefined) return `new URL(${JSON.stringify(`./${entry}.js`)}, import.meta.url)`;
      return match.replace("import.meta.url", `new URL(${JSON.stringify(own)}, import.meta.url).href`);
    });
    return { code: rewritten, map: null };
  },
};

const stale = () => !existsSync(BUNDLE_MAIN) || statSync(BUNDLE_MAIN).mtimeMs < statSync(TSC_STAMP).mtimeMs;

if (!process.argv.includes("--if-stale") || stale()) {
  rmSync(OUT_DIR, { recursive: true, force: true });
  await build({
    input: ENTRIES,
    platform: "node",
    plugins: [keepModuleUrls],
    // ink imports it only under DEV=true, and it is not installed: left to fail as it would unbundled.
    external: ["react-devtools-core"],
    logLevel: "warn",
    output: { dir: OUT_DIR, format: "esm", entryFileNames: "[name].js", chunkFileNames: "[name]-[hash].js" },
  });
}
