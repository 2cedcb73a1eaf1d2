import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadEngineManifest } from "../../harness/engine/manifest.ts";
import { InputError } from "../../src/formats/load.ts";
import { fieldtest, runFieldtest } from "../helpers/cli.ts";
import { engineDir, standInManifest } from "./helpers.ts";

const base = { name: "x", protocol: "command", speaks: "openai", start: { argv: ["engine", "{goal_file}"] } };

function manifestError(manifest: unknown, files: Record<string, string> = {}): string {
  const dir = engineDir();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const file = join(dir, "engine.yaml");
  writeFileSync(file, stringify(manifest));
  try {
    loadEngineManifest(file);
  } catch (e) {
    if (e instanceof InputError) return e.message.replace(dir, "DIR");
    throw e;
  }
  return "accepted";
}

describe("engine manifest", () => {
  it("accepts the shipped PlannerCritic manifest and its template", () => {
    const loaded = loadEngineManifest("engines/planner-critic.yaml");
    expect(loaded.manifest.result).toEqual({ format: "planner-critic", from: "file", path: "{trial_dir}/out/core-api/{goal_id}/trace.json" });
    expect(loaded.template).toContain('api_key = "{planner.token}"');
    expect(loaded.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("names the file, the key path and what is wrong, in one line", () => {
    expect(manifestError({ ...base, protocol: "daemon" })).toMatch(/^DIR\/engine\.yaml:\d+: protocol: /);
    expect(manifestError({ ...base, start: { argv: ["engine", "{goal}"] } })).toMatch(/start\.argv\[1\]: \{goal\} is not filled here/);
    expect(manifestError({ ...base, start: { argv: ["engine", "${OPENAI_API_KEY}"] } })).toMatch(
      /start\.argv\[1\]: \$\{OPENAI_API_KEY\} looks like a credential/,
    );
    expect(manifestError({ ...base, result: { from: "file" } })).toMatch(/result\.path: a result read from a file needs its path/);
    expect(manifestError({ ...base, protocol: "worker", start: { argv: ["engine"] }, config: { template: "t", path: "p" } })).toMatch(
      /config: a worker gets each trial's roles/,
    );
    expect(manifestError({ ...base, protocol: "worker", start: { argv: ["engine", "{goal_file}"] } })).toMatch(
      /\{goal_file\} is not filled here \(\{slot\}, \{slot_dir\}\)/,
    );
    expect(manifestError({ ...base, replay: { normalize: [{ pattern: "(", replace: "" }] } })).toMatch(
      /replay\.normalize\[0\]\.pattern: not a regular expression/,
    );
    expect(manifestError({ ...base, unknown: 1 })).toMatch(/unknown/);
    expect(manifestError({ ...base, config: { template: "c.toml", path: "{trial_dir}/c.toml" } }, { "c.toml": 'key = "{planner.secret}"' })).toMatch(
      /^DIR\/c\.toml: \{planner\.secret\} is not a placeholder/,
    );
  });

  it("gives an engine its token through a variable it reads, whatever that variable is called", () => {
    expect(manifestError({ ...base, start: { argv: ["engine"], env: { OPENAI_API_KEY: "{planner.token}" } } })).toBe("accepted");
  });
});

describe("fieldtest engine check and schema engine", () => {
  it("checks a manifest and asks the engine its version (exit 0), bad input exit 2", async () => {
    const dir = engineDir();
    const ok = await fieldtest("engine", "check", standInManifest(dir));
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^stand-in: command protocol, speaks openai, version stand-in-engine 1\.0\.0/);
    const broken = join(dir, "broken.yaml");
    writeFileSync(broken, stringify({ ...base, version: { argv: [process.execPath, "-e", "process.exit(4)"] } }));
    const failed = await fieldtest("engine", "check", broken);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/broken\.yaml: version\.argv: .* exited with 4/);
    expect(failed.stderr).not.toMatch(/\n\s+at /);
  });

  it("with --smoke, refuses roles the engine cannot speak to", async () => {
    const smoke = await runFieldtest(["engine", "check", standInManifest(engineDir()), "--smoke"]);
    expect(smoke.code).toBe(2);
    expect(smoke.stderr).toMatch(/planner provider: stand-in speaks openai: serve its planner with --provider openai/);
  });

  it("prints the manifest's and the result contract's JSON Schemas", async () => {
    const manifest = JSON.parse((await fieldtest("schema", "engine")).stdout);
    expect(manifest.required).toEqual(expect.arrayContaining(["name", "protocol", "speaks", "start"]));
    const result = JSON.parse((await fieldtest("schema", "engine-result")).stdout);
    expect(result.properties.status.enum).toEqual(["approved", "escalated", "error"]);
  });
});
