import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { sha256 } from "../canonical.ts";

/**
 * Parsed YAML kept between processes, by the SHA-256 of the text and the parser's version and options: every
 * command that reads the corpus (run, gate, report, diff, validate ...) would otherwise spend about
 * half a second in the YAML parser on the same 265 files. A text maps to one value, so an entry is
 * never stale; an entry that cannot be read is parsed again. Only values that JSON writes exactly
 * (plain objects and arrays, strings, booleans, null, finite numbers other than -0) are kept, so a
 * value from the cache is the value the parser gives. Off until the CLI names a folder (tests
 * that load files in-process parse them).
 */
let folder: string | undefined;
let parserVersion: string | undefined;

/** Keep parsed YAML under `dir` (created owner-only: its entries are trusted as parser output). */
export function keepParsedYaml(dir: string | undefined): void {
  folder = dir;
}

/** The parser's options (src/formats/load.ts parses with them): part of every entry's key, so changing them never serves a value parsed under others. */
export const YAML_OPTIONS = { uniqueKeys: true, prettyErrors: false } as const;

const entryFile = (dir: string, text: string): string => {
  parserVersion ??= (createRequire(import.meta.url)("yaml/package.json") as { version: string }).version;
  return join(dir, `${sha256(`yaml@${parserVersion} ${JSON.stringify(YAML_OPTIONS)}\n${text}`)}.json`);
};

/** The kept value of a YAML text, or undefined when none is kept. */
export function keptYaml(text: string): { value: unknown } | undefined {
  if (folder === undefined) return undefined;
  try {
    return { value: JSON.parse(readFileSync(entryFile(folder, text), "utf8")) as unknown };
  } catch {
    return undefined;
  }
}

/** Keep a YAML text's parsed value when JSON writes it exactly; a folder that cannot be written keeps nothing. */
export function keepYaml(text: string, value: unknown): void {
  if (folder === undefined || !jsonExact(value)) return;
  const file = entryFile(folder, text);
  const partial = `${file}.${process.pid}.partial`;
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    writeFileSync(partial, JSON.stringify(value));
    renameSync(partial, file);
  } catch {
    // a cache that cannot be written costs the next process a parse, nothing else
  }
}

/** True when JSON.parse(JSON.stringify(value)) gives back the same value. */
export function jsonExact(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every(jsonExact);
  if (typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.keys(value).every((k) => k !== "__proto__" && jsonExact((value as Record<string, unknown>)[k]));
}
