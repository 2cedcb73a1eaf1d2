/**
 * The README's set-up on a fresh machine: a clone of the repository alone in a temporary folder
 * (nothing beside it), a PATH without any browser, then exactly the README's two commands:
 * `npm ci && npx --no-install fieldtest run`, and `npm test`. npm reuses this machine's package
 * cache (prefer-offline), so it needs no network beyond the registry for what the cache lacks.
 *
 * Slow (a full install and a second full suite), so it runs where the suite runs for a release,
 * in CI (CI set, as .ci/run has it), or with FIELDTEST_FRESH_CLONE=1; the inner `npm test` skips
 * this file (FIELDTEST_INNER_CLONE), or it would clone itself without end.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../harness/package.ts";

const inner = process.env.FIELDTEST_INNER_CLONE === "1";
const wanted = !inner && (Boolean(process.env.CI) || process.env.FIELDTEST_FRESH_CLONE === "1");
const BROWSER = /chrom|firefox|msedge|webkit|brave/i;

/** A folder of links to every program on PATH except browsers, to stand in for PATH. */
function pathWithoutBrowsers(into: string): string {
  mkdirSync(into);
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir || !existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (BROWSER.test(name) || existsSync(join(into, name))) continue;
      try {
        if (statSync(join(dir, name)).isFile()) symlinkSync(join(dir, name), join(into, name));
      } catch {
        // a dangling link or an unreadable entry is no program
      }
    }
  }
  return into;
}

describe.skipIf(!wanted)("a fresh clone runs the README's two commands (no system browser, nothing beside it)", () => {
  const root = mkdtempSync(join(tmpdir(), "ft-fresh-"));
  const bin = mkdtempSync(join(tmpdir(), "ft-fresh-path-"));
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(bin, { recursive: true, force: true });
  });

  it(
    "installs, sweeps and passes its own tests",
    () => {
      const clone = join(root, "fieldtest");
      const cloned = spawnSync("git", ["clone", "--quiet", "--no-hardlinks", PACKAGE_ROOT, clone], { encoding: "utf8" });
      expect(cloned.status, cloned.stderr).toBe(0);
      expect(readdirSync(root)).toEqual(["fieldtest"]);

      const env: NodeJS.ProcessEnv = {
        HOME: process.env.HOME,
        PATH: pathWithoutBrowsers(join(bin, "bin")),
        CI: "1",
        FIELDTEST_INNER_CLONE: "1",
        npm_config_prefer_offline: "true",
      };
      expect(spawnSync("sh", ["-c", "command -v chromium chromium-browser google-chrome || true"], { env, encoding: "utf8" }).stdout).toBe("");
      const sh = (command: string) => spawnSync("sh", ["-c", command], { cwd: clone, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });

      const main = sh("npm ci && npx --no-install fieldtest run");
      expect(main.status, main.stderr.slice(-4000)).toBe(0);
      expect(main.stdout).toMatch(/^wrote:$/m);
      const [run] = readdirSync(join(clone, "runs"));
      expect(readdirSync(join(clone, "runs", run!))).toEqual(expect.arrayContaining(["manifest.json", "trials.jsonl", "summary.json", "report.html"]));

      const tests = sh("npm test");
      // vitest colours its summary even into a pipe
      const out = `${tests.stdout}\n${tests.stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
      expect(tests.status, out.slice(-4000)).toBe(0);
      // every test ran but this one, which the inner suite skips, and the opt-in run of the real
      // PlannerCritic (no PLANNER_CRITIC_PYTHON here); the browser test among those that ran
      const skippedFiles = [...out.matchAll(/^\s*[✓↓] (\S+) \(\d+ tests? \| (\d+) skipped\)/gm)];
      expect(skippedFiles.map((m) => m[1]).sort()).toEqual(["test/ci/fresh-clone.test.ts", "test/external-engine/planner-critic.test.ts"]);
      const skipped = skippedFiles.reduce((sum, m) => sum + Number(m[2]), 0);
      expect(out).toMatch(new RegExp(`Tests\\s+\\d+ passed \\| ${skipped} skipped \\(\\d+\\)`));
      expect(out).toMatch(/test\/report\/report\.test\.ts/);
    },
    20 * 60_000,
  );
});
