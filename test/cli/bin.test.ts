import { execa } from "execa";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { PARSED_YAML_DIR } from "../../harness/package.ts";
import { readTrialLog } from "../../harness/run/store.ts";
import { keepParsedYaml, keptYaml } from "../../src/formats/yaml-cache.ts";
import { runFieldtest } from "../helpers/cli.ts";
import { startSimServer } from "../providers/sim-server.ts";

const BIN = fileURLToPath(new URL("../../bin/fieldtest.js", import.meta.url));
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** bin/fieldtest.js in a folder named `folder`, beside `main` as dist/bundle/main.js if given, run with `--help`. */
async function runBin(folder: string, main?: string) {
  const root = mkdtempSync(join(tmpdir(), "ft-bin-"));
  roots.push(root);
  const bin = join(root, folder, "bin");
  mkdirSync(bin, { recursive: true });
  copyFileSync(BIN, join(bin, "fieldtest.js"));
  if (main !== undefined) {
    const cli = join(root, folder, "dist", "bundle");
    mkdirSync(cli, { recursive: true });
    writeFileSync(join(cli, "main.js"), main);
  }
  return execa(process.execPath, [join(bin, "fieldtest.js"), "--help"], { reject: false });
}

describe("bin/fieldtest.js without a build", () => {
  it.each(["plain", "with a space", "per%cent"])("says in one line that the build is missing, exit 3 (folder %j)", async (folder) => {
    const r = await runBin(folder);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toBe("fieldtest: error: the build is missing (dist/): run `npm run build` (`npm ci` runs it)");
    expect(r.stdout).toBe("");
  });

  it.each(["plain", "with a space"])(
    "does not call a build broken inside (a module the entry imports is missing) a missing build (folder %j)",
    async (folder) => {
      const r = await runBin(folder, 'import "./gone.js";\n');
      expect(r.exitCode).not.toBe(0);
      expect(r.exitCode).not.toBe(3);
      expect(r.stderr).not.toContain("the build is missing");
      expect(r.stderr).toContain("gone.js");
    },
  );
});

describe("bin/fieldtest.js runs the command line on this process", () => {
  // The other CLI tests run command lines in process (test/helpers/cli.ts): here the binary must
  // print the same and exit with the same code, for a success, a block, bad input, usage mistakes,
  // help, nested commands and a refused budget; both with no environment.
  const FIX = "test/engine/fixtures";
  const CASES: [number, string[]][] = [
    [0, ["--version"]],
    [0, ["check", "--goal", `${FIX}/goal.yaml`, "--plan", `${FIX}/plan.yaml`]],
    [1, ["critique", "--goal", `${FIX}/goal.yaml`, "--plan", `${FIX}/plan.yaml`, "--response", `${FIX}/response-blocker.json`]],
    [2, ["report", "no-such-run"]],
    [2, ["gate", "no-such-run"]],
    [2, ["import", "planner-critic"]],
    [0, ["baseline", "publish", "--help"]],
    // A budget the estimate already breaks is refused before anything is called or written.
    [3, ["run", "--only", "apigw-01-kong-to-envoy-gateway", "--max-calls", "1"]],
  ];
  it.each(CASES)("exit %i: fieldtest %s prints the same as in process", async (code, args) => {
    const [bin, inProcess] = await Promise.all([
      execa(process.execPath, [BIN, ...args], { reject: false, stripFinalNewline: false, env: {}, extendEnv: false }),
      runFieldtest(args),
    ]);
    expect(inProcess.code).toBe(code);
    expect({ code: bin.exitCode, stdout: bin.stdout, stderr: bin.stderr }).toEqual(inProcess);
  });
});

describe("bin/fieldtest.js keeps parsed YAML for the next command", () => {
  afterEach(() => keepParsedYaml(undefined));

  it("a goal file it read is in the package's cache afterwards, under its text", async () => {
    const root = mkdtempSync(join(tmpdir(), "ft-bin-yaml-"));
    roots.push(root);
    // A text no earlier command can have read: the entry is this command's.
    const text = `${readFileSync("test/engine/fixtures/goal.yaml", "utf8")}\n# ${root}\n`;
    writeFileSync(join(root, "goal.yaml"), text);
    keepParsedYaml(PARSED_YAML_DIR);
    expect(keptYaml(text)).toBeUndefined();
    const r = await execa(process.execPath, [BIN, "check", "--goal", join(root, "goal.yaml"), "--plan", "test/engine/fixtures/plan.yaml"], { reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(keptYaml(text)?.value).toMatchObject({ id: expect.any(String), risk_tolerance: expect.any(String) });
  });
});

describe("bin/fieldtest.js sends a live provider's calls from the bundle's HTTP thread", () => {
  it("runs a sweep against an OpenAI-compatible server, each call answered and timed", async () => {
    const sim = await startSimServer({ faultRate: 0 });
    const out = join(mkdtempSync(join(tmpdir(), "ft-bin-live-")), "run");
    roots.push(dirname(out));
    try {
      const args = [
        "run",
        "--provider",
        "openai",
        "--model",
        "gpt-4o-mini",
        "--base-url",
        `${sim.server.url}/v1`,
        "--only",
        "apigw-01-kong-to-envoy-gateway,clean-blast-label-drill-high",
        "--trials",
        "1",
        "--out",
        out,
      ];
      const r = await execa(process.execPath, [BIN, ...args], { reject: false, env: { CI: "1" }, extendEnv: false });
      expect(r.exitCode, r.stderr).toBe(0);
    } finally {
      await sim.close();
    }
    const calls = readTrialLog(out, (t) => t).records.flatMap((t) => t.calls);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(new Set(calls.map((c) => [c.context.sdk, c.outcome, c.http_status].join(" ")))).toEqual(new Set(["openai ok 200"]));
    for (const c of calls) expect(c.latency_ms).toBeGreaterThan(0);
  });
});
