import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { hashCanonical } from "../canonical.ts";
import { canaryFileSchema, type CanaryFile } from "../formats/canary.ts";
import { PACK_CODE_PATTERN, packGateId } from "../formats/findings.ts";
import { InputError, readSource, validate } from "../formats/load.ts";
import { compileRules, type CompiledPack } from "./compile.ts";
import { PackManifestSchema } from "./schema.ts";

const PACK_MANIFEST = "pack.yaml";
const PACK_CANARIES = "canaries";

const PackCanaryFileSchema = canaryFileSchema(z.string().regex(PACK_CODE_PATTERN));
const CANARY_FILE = /\.(ya?ml|json)$/;

function canaryFiles(dir: string): { name: string; canary: CanaryFile; file: string }[] {
  const folder = join(dir, PACK_CANARIES);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) return [];
  return readdirSync(folder)
    .filter((f) => CANARY_FILE.test(f))
    .sort()
    .map((name) => {
      const file = join(folder, name);
      return { name, file, canary: validate(readSource(file), PackCanaryFileSchema) };
    });
}

/**
 * Load one pack folder: `pack.yaml` (name, version, attributes, rules) and `canaries/*.yaml`.
 * Every rule is parsed and type-checked, every canary case must name rules of this pack, and a
 * rule without both a must-fire and a must-not-fire case refuses the whole pack. Any of these is
 * invalid input naming the file, the key path and the line.
 */
export function loadPack(dir: string): CompiledPack {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError(dir, "", "pack folder not found");
  const manifestFile = join(dir, PACK_MANIFEST);
  if (!existsSync(manifestFile)) throw new InputError(dir, "", `not a pack folder: it has no ${PACK_MANIFEST}`);
  const source = readSource(manifestFile);
  const manifest = validate(source, PackManifestSchema);
  const rules = compileRules(manifest, { file: manifestFile, lineOf: (p) => source.lineOf(p) });
  const canaries = canaryFiles(dir);

  const codes = new Set(rules.map((r) => r.code));
  const covered = { fires: new Set<string>(), silent_for: new Set<string>() };
  for (const { file, canary } of canaries) {
    canary.cases.forEach((c, i) => {
      for (const key of ["fires", "silent_for"] as const) {
        c[key].forEach((code, j) => {
          if (!codes.has(code)) throw new InputError(file, `cases[${i}].${key}[${j}]`, `"${code}" is not a rule of pack ${manifest.name} (rules: ${[...codes].join(", ")})`);
          covered[key].add(code);
        });
      }
    });
  }
  manifest.rules.forEach((rule, i) => {
    const missing = [!covered.fires.has(rule.code) && "must-fire", !covered.silent_for.has(rule.code) && "must-not-fire"].filter(Boolean);
    if (missing.length > 0)
      throw new InputError(manifestFile, `rules[${i}]`, `rule ${rule.code} has no ${missing.join(" and no ")} canary in ${join(dir, PACK_CANARIES)}/: every rule needs both, so the pack is refused`, source.lineOf(["rules", i]));
  });

  const content = { manifest, canaries: canaries.map(({ name, canary }) => ({ name, canary })) };
  return {
    name: manifest.name,
    version: manifest.version,
    hash: hashCanonical(content),
    gate: packGateId(manifest.name),
    attributes: manifest.attributes,
    rules,
    canaries: content.canaries,
  };
}

/**
 * Load the enabled packs, in name order. Two packs with one name, or one attribute declared with
 * two types, are invalid input (a plan attribute has one meaning for the whole run).
 */
export function loadPacks(dirs: readonly string[]): CompiledPack[] {
  const packs: { dir: string; pack: CompiledPack }[] = [];
  const unique = [...new Map(dirs.map((d) => [resolve(d), d])).values()];
  for (const dir of unique) {
    const pack = loadPack(dir);
    const twin = packs.find((p) => p.pack.name === pack.name);
    if (twin) throw new InputError(dir, "name", `pack "${pack.name}" is already enabled from ${twin.dir}`);
    for (const other of packs) {
      for (const [name, decl] of Object.entries(pack.attributes)) {
        const theirs = other.pack.attributes[name];
        if (theirs && theirs.type !== decl.type)
          throw new InputError(join(dir, PACK_MANIFEST), `attributes.${name}`, `is declared ${decl.type} here and ${theirs.type} by pack ${other.pack.name}`);
      }
    }
    packs.push({ dir, pack });
  }
  return packs.map((p) => p.pack).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The version of what every pack runs through beside its rules: the view, the attribute checks.
 * Bumped when a change there alters what a pack reports (2: `attribute_misnamed`), so that a diff
 * against a baseline names the change as a cause instead of leaving its findings unexplained.
 */
export const PACK_EVALUATOR_VERSION = 2;

/** `pack.<name>` → `<name>@<version> sha256:<hash> evaluator <n>`: what a manifest records beside the gate versions, and what a diff attributes to. */
export function packVersions(packs: readonly CompiledPack[]): Record<string, string> {
  return Object.fromEntries(packs.map((p) => [p.gate, `${p.name}@${p.version} sha256:${p.hash} evaluator ${PACK_EVALUATOR_VERSION}`]));
}
