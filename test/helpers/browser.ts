import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, linkSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress } from "node:zlib";
import { chromium, type BrowserContext, type Page } from "playwright-core";

/**
 * The Chromium the browser tests drive: FIELDTEST_CHROMIUM when set (any Chromium or Chrome
 * binary, e.g. a system one), otherwise the build that the `@sparticuz/chromium` dev dependency
 * ships inside its npm package (x64 Linux), unpacked once per install into node_modules/.cache.
 * No root, no system browser and no download beyond `npm ci`. There is no fallback to skipping:
 * when no browser can start, the test fails and says why.
 */
async function chromiumPath(): Promise<string> {
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
  // Test workers may race to unpack: each writes its own file, and the first to finish links it into place.
  const partial = `${binary}.${process.pid}.partial`;
  await pipeline(createReadStream(join(packageDir, "bin", "chromium.br")), createBrotliDecompress(), createWriteStream(partial, { mode: 0o755 }));
  // Link, never rename: a rename would replace a binary another worker's Chromium is running,
  // and Chromium re-executes its own file for every child process ("(deleted)", GPU process fails).
  try {
    linkSync(partial, binary);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  } finally {
    unlinkSync(partial);
  }
  return binary;
}

/** A headless Chromium context on a fresh profile folder (the caller removes it). */
async function launchChromium(profileDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: await chromiumPath(),
    headless: true,
    // No GPU and no sandbox (CI containers run as root); nothing reaches the network.
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

export interface OpenedPage {
  page: Page;
  /** Console errors and uncaught page errors, in order. */
  errors: string[];
  /** Every request the page made that is not the file itself. */
  requests: string[];
  close(): Promise<void>;
}

/** Open a local HTML file in a fresh headless profile, recording console errors and every request. */
export async function openPage(file: string, viewport = { width: 1280, height: 900 }): Promise<OpenedPage> {
  const profile = mkdtempSync(join(tmpdir(), "fieldtest-chromium-"));
  const context = await launchChromium(profile);
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  const errors: string[] = [];
  const requests: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => {
    if (r.url() !== `file://${file}`) requests.push(r.url());
  });
  await page.goto(`file://${file}`);
  return {
    page,
    errors,
    requests,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Open a local HTML file, run `check` on it, and close it; the page must have logged no error. */
export async function inPage(file: string, check: (p: OpenedPage) => Promise<void>): Promise<void> {
  const p = await openPage(file);
  try {
    await check(p);
    if (p.errors.length) throw new Error(`${file}: console errors ${JSON.stringify(p.errors)}`);
  } finally {
    await p.close();
  }
}
