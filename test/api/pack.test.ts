import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../harness/package.ts";

/**
 * fieldtest as a user gets it: `npm pack` of the repository, installed into an empty folder, then
 * imported by its name from there: a 3-goal sweep on the sim and a gate through the public API.
 */

/** The stamps tsc writes with the build (tsconfig.json) and with the declarations (tsconfig.types.json). */
const BUILD_STAMP = join(PACKAGE_ROOT, "dist", ".tsbuildinfo");
const TYPES_STAMP = join(PACKAGE_ROOT, "dist", ".types.tsbuildinfo");

const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, npm_config_prefer_offline: "true", npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" },
  });

describe("the packed package", () => {
  const root = mkdtempSync(join(tmpdir(), "ft-pack-"));
  const app = join(root, "app");
  let files: string[] = [];

  beforeAll(() => {
    // The declarations the `types` of "." names (npm run build writes them; the test build does not),
    // made again only when the build (test/setup/build.ts) is newer than they are: after `npm ci`
    // they are current, and tsc takes seconds to find that out itself.
    if (!(existsSync(TYPES_STAMP) && statSync(TYPES_STAMP).mtimeMs >= statSync(BUILD_STAMP).mtimeMs)) {
      const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
      run(process.execPath, [tsc, "-p", join(PACKAGE_ROOT, "tsconfig.types.json")], PACKAGE_ROOT);
      // tsc leaves its stamp alone when nothing changed: they are current as of now.
      const now = new Date();
      utimesSync(TYPES_STAMP, now, now);
    }
    // The build is current (test/setup/build.ts): packing it needs no `prepare`.
    const [packed] = JSON.parse(run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", root], PACKAGE_ROOT)) as {
      filename: string;
      files: { path: string }[];
    }[];
    files = packed!.files.map((f) => f.path);
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    run("npm", ["install", "--no-save", "--ignore-scripts", join(root, packed!.filename)], app);
  }, 180_000);

  it("carries the build, the declarations and the data a sweep reads, and no tests or runs", () => {
    for (const path of [
      "bin/fieldtest.js",
      "dist/harness/api/index.js",
      "dist/types/harness/api/index.d.ts",
      "dist/bundle/main.js",
      "dist/src/providers/prices.yaml",
      "dist/src/sim/profiles/default.yaml",
      "corpus/canaries",
      "baselines/sim-default.json",
      "gate.yaml",
      "examples/api.mjs",
    ]) {
      expect(
        files.some((f) => f.startsWith(path)),
        path,
      ).toBe(true);
    }
    expect(files.filter((f) => /^(test|runs|dist\/test|dist\/scripts|src|harness)\//.test(f) || f.endsWith(".tsbuildinfo"))).toEqual([]);
  });

  it("runs a 3-goal sweep and a gate by its name, from a folder that is not the package's", () => {
    const script = `
      import("fieldtest").then(async ({ runSweep, gate, PACKAGE_ROOT }) => {
        const sweep = await runSweep({ suite: ["corpus"], only: ["apigw-02-*", "apigw-03-*", "db-01-*"], trials: 2, out: "runs/api" }, { stderr: { write: () => true } });
        const judged = gate({ run: sweep.dir, baseline: PACKAGE_ROOT + "/baselines/sim-default.json", policy: PACKAGE_ROOT + "/gate.sim.yaml" });
        console.log(JSON.stringify({ exitCode: sweep.exitCode, dir: sweep.dir, counts: sweep.summary.counts, root: PACKAGE_ROOT, gate: { exitCode: judged.exitCode, decision: judged.result.decision, checks: judged.result.checks.length } }));
      });`;
    const out = JSON.parse(run(process.execPath, ["--input-type=module", "-e", script], app)) as Record<string, unknown>;
    expect(out).toMatchObject({
      exitCode: 0,
      dir: "runs/api",
      counts: { items: { corpus: 3 }, trials: { corpus: 6 } },
      root: join(app, "node_modules", "fieldtest"),
    });
    // A run of 3 goals against the full sim baseline covers too few items to pass or fail: inconclusive, with every check said.
    expect(out.gate).toMatchObject({ exitCode: 2, decision: "inconclusive" });
    expect((out.gate as { checks: number }).checks).toBeGreaterThan(0);
    expect(existsSync(join(app, "runs", "api", "gate-junit.xml"))).toBe(true);
  });

  it("runs examples/api.mjs from there, which exits with the gate's code", () => {
    copyFileSync(join(app, "node_modules", "fieldtest", "examples", "api.mjs"), join(app, "api.mjs"));
    const { status, stdout } = spawnSync(process.execPath, ["api.mjs"], { cwd: app, encoding: "utf8" });
    expect(status).toBe(2);
    expect(stdout).toMatch(
      /^sweep: runs\/\S+: 3 goals, 6 trials; engine_flip_rate \S+ over 3 items\ngate: inconclusive \(exit 2\); failed: none; JUnit runs\/\S+\/gate-junit\.xml\n$/,
    );
    expect(readdirSync(join(app, "runs")).length).toBe(2);
  });
});
