import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { PACKAGE_ROOT } from "../../harness/package.ts";

/**
 * The build's copy (dist/) of one of the repository's TypeScript files, for tests that run it as a
 * child process: plain `node` starts it in a fraction of what a TypeScript loader costs. Vitest
 * builds dist/ first (test/setup/build.ts), so the copy is never stale there.
 */
export function compiled(file: string): string {
  const path = join(PACKAGE_ROOT, "dist", relative(PACKAGE_ROOT, file).replace(/\.tsx?$/, ".js"));
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` (npm test does) first`);
  return path;
}
