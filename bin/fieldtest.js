#!/usr/bin/env node
import { fileURLToPath } from "node:url";

// The CLI runs the bundled build in dist/bundle/ (`npm run build`; `npm ci` runs it as `prepare`).
const entry = new URL("../dist/bundle/main.js", import.meta.url);
try {
  await import(entry.href);
} catch (e) {
  // Node names the missing module by its path in quotes (not by its URL, where a space is %20); the
  // entry named unquoted, as the importer of another missing module, is a broken build, not a missing one.
  if (e?.code !== "ERR_MODULE_NOT_FOUND" || !String(e.message).includes(`'${fileURLToPath(entry)}'`)) throw e;
  process.stderr.write("fieldtest: error: the build is missing (dist/): run `npm run build` (`npm ci` runs it)\n");
  process.exitCode = 3;
}
