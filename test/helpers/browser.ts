import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress } from "node:zlib";
import { chromium, type BrowserContext } from "playwright-core";

/**
 * The Chromium the browser tests drive: FIELDTEST_CHROMIUM when set (any Chromium or Chrome
 * binary, e.g. a system one), otherwise the build that the `@sparticuz/chromium` dev dependency
 * ships inside its npm package (x64 Linux), unpacked once per install into node_modules/.cache.
 * No root, no system browser and no download beyond `npm ci`. There is no fallback to skipping:
 * when no browser can start, the test fails and says why.
 */
export async function chromiumPath(): Promise<string> {
  const explicit = process.env.FIELDTEST_CHROMIUM;
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`FIELDTEST_CHROMIUM=${explicit}: no such file`);
    return explicit;
  }
  const require = createRequire(import.meta.url);
  const entry = require.resolve("@sparticuz/chromium"); // <node_modules>/@sparticuz/chromium/build/cjs/index.cjs
  const packageDir = join(dirname(entry), "..", "..");
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string };
  const cacheDir = join(packageDir, "..", "..", ".cache", `fieldtest-chromium-${version}`);
  const binary = join(cacheDir, "chromium");
  if (existsSync(binary)) return binary;
  mkdirSync(cacheDir, { recursive: true });
  // Test workers may race to unpack: each writes its own file and renames it into place whole.
  const partial = `${binary}.${process.pid}.partial`;
  await pipeline(createReadStream(join(packageDir, "bin", "chromium.br")), createBrotliDecompress(), createWriteStream(partial, { mode: 0o755 }));
  renameSync(partial, binary);
  return binary;
}

/** A headless Chromium context on a fresh profile folder (the caller removes it). */
export async function launchChromium(profileDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: await chromiumPath(),
    headless: true,
    // No GPU and no sandbox (CI containers run as root); nothing reaches the network.
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}
