// Tests run the engine and harness from their compiled modules in dist/ (vitest.config.ts), as
// the CLI does; building first here (a timestamp check when nothing changed) means a plain
// `npx vitest run` never tests a stale build. Watch mode builds once, at its start.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";

export default function build(): void {
  const root = join(import.meta.dirname, "../..");
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-b", join(root, "tsconfig.json")], { cwd: root, stdio: "inherit" });
  execFileSync(process.execPath, [join(root, "dist/scripts/build-assets.js")], { cwd: root, stdio: "inherit" });
  // The binary runs the bundle: rebuilt only when tsc wrote something since.
  execFileSync(process.execPath, [join(root, "dist/scripts/bundle.js"), "--if-stale"], { cwd: root, stdio: "inherit" });
}
