import { createReadStream, createWriteStream, existsSync, mkdirSync, linkSync, readFileSync, unlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress } from "node:zlib";
import { chromium, type Browser, type Page } from "playwright-core";

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

export interface OpenedPage {
  page: Page;
  /** Console errors and uncaught page errors, in order. */
  errors: string[];
  /** Every request the page made that is not the file itself. */
  requests: string[];
  close(): Promise<void>;
}

/** A headless Chromium, launched at its first page; every page opens in a context of its own. */
interface BrowserSession {
  /** Open a local HTML file in a fresh context (no storage, cache or permission shared with another page), recording console errors and every request. */
  openPage(file: string, viewport?: { width: number; height: number }): Promise<OpenedPage>;
  /** Open a local HTML file, run `check` on it, and close it; the page must have logged no error. */
  inPage(file: string, check: (p: OpenedPage) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/**
 * A browser session; its owner closes it (a test file after its last test). One browser with a
 * context per page costs less than half the CPU and wall time of a browser per page on a fresh
 * profile folder, for the same isolation between pages.
 */
export function browserSession(): BrowserSession {
  let browser: Promise<Browser> | null = null;
  const openPage = async (file: string, viewport = { width: 1280, height: 900 }): Promise<OpenedPage> => {
    browser ??= chromiumPath().then((executablePath) =>
      chromium.launch({
        executablePath,
        headless: true,
        // No GPU and no sandbox (CI containers run as root); nothing reaches the network.
        args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
      }),
    );
    const context = await (await browser).newContext({ viewport });
    const page = await context.newPage();
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
    return { page, errors, requests, close: () => context.close() };
  };
  return {
    openPage,
    inPage: async (file, check) => {
      const p = await openPage(file);
      try {
        await check(p);
        if (p.errors.length) throw new Error(`${file}: console errors ${JSON.stringify(p.errors)}`);
      } finally {
        await p.close();
      }
    },
    // A launch that failed has nothing to close (the page that asked for it has said why).
    close: async () =>
      void (await browser?.then(
        (b) => b.close(),
        () => undefined,
      )),
  };
}
