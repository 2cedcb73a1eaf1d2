#!/usr/bin/env node
// The CLI runs the compiled build in dist/ (`npm run build`; `npm ci` runs it as `prepare`).
const entry = new URL("../dist/harness/cli/main.js", import.meta.url);
try {
  await import(entry.href);
} catch (e) {
  if (e?.code !== "ERR_MODULE_NOT_FOUND" || !String(e.message).includes(entry.pathname)) throw e;
  process.stderr.write("fieldtest: error: the build is missing (dist/): run `npm run build` (`npm ci` runs it)\n");
  process.exitCode = 3;
}
