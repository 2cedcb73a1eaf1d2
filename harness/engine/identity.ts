import { spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { InputError } from "../../src/formats/load.ts";
import { engineEnvironment } from "./executor.ts";
import { loadEngineManifest, type LoadedEngine } from "./manifest.ts";
import { expand } from "./template.ts";

/** How long an engine may take to print its version. */
const VERSION_TIMEOUT_MS = 60_000;

/** What a run records of the engine it field-tested (manifest.json `config.engine`, covered by the config hash). */
export interface EngineIdentity {
  /** The manifest's path as given (where it lives cannot change a result: not hashed). */
  file: string;
  name: string;
  manifest_sha256: string;
  /** The first line the engine's version command printed; null when its manifest has none. */
  version: string | null;
}

/** The engine's version, from its manifest's version command: a command that fails is bad input naming it. */
function engineVersion(engine: LoadedEngine, env: NodeJS.ProcessEnv): string | null {
  const command = engine.manifest.version;
  if (command === undefined) return null;
  const argv = command.argv.map((a) => expand(a, {}, env));
  const added = Object.fromEntries(Object.entries(command.env).map(([k, v]) => [k, expand(v, {}, env)]));
  const out = spawnSync(argv[0]!, argv.slice(1), {
    cwd: dirname(resolve(engine.file)),
    env: { ...engineEnvironment(env), ...added },
    encoding: "utf8",
    timeout: VERSION_TIMEOUT_MS,
  });
  const said = (out.stderr ?? "").trim().split("\n").at(-1)?.slice(0, 200) ?? "";
  if (out.error) throw new InputError(engine.file, "version.argv", `${argv.join(" ")} could not be run: ${out.error.message}`);
  if (out.status !== 0)
    throw new InputError(engine.file, "version.argv", `${argv.join(" ")} exited with ${out.status ?? out.signal}${said ? `: ${said}` : ""}`);
  const version = (out.stdout ?? "").trim().split("\n")[0]?.trim() ?? "";
  if (version === "") throw new InputError(engine.file, "version.argv", `${argv.join(" ")} printed no version`);
  return version;
}

/** Loads an engine manifest and asks the engine its version. */
export function identifyEngine(file: string, env: NodeJS.ProcessEnv): { engine: LoadedEngine; identity: EngineIdentity } {
  const engine = loadEngineManifest(file);
  return { engine, identity: { file, name: engine.manifest.name, manifest_sha256: engine.sha256, version: engineVersion(engine, env) } };
}
