import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder that holds fieldtest's package.json: the nearest one above this module, whether it
 * runs from the sources (harness/) or from the build (dist/harness/, which has no package.json).
 */
function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** Where the CLI keeps parsed YAML between commands (src/formats/yaml-cache.ts). */
export const PARSED_YAML_DIR = join(PACKAGE_ROOT, "node_modules", ".cache", "fieldtest", "yaml");

export const PACKAGE_VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;

/** The corpus and the production gate policy that ship with fieldtest: the defaults wherever the caller runs from. */
export const PACKAGED_CORPUS = join(PACKAGE_ROOT, "corpus");
export const PACKAGED_POLICY = join(PACKAGE_ROOT, "gate.yaml");
