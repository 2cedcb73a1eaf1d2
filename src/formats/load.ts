import { createRequire } from "node:module";
import type { Document } from "yaml";
import type { z } from "zod";
import { deepFreeze } from "../canonical.ts";
import { readRunText, readText } from "./files.ts";
import { InputError } from "./input-error.ts";
import { keepYaml, keptYaml, YAML_OPTIONS } from "./yaml-cache.ts";

export { InputError, readText };

/** `tasks[2].kind` style path from zod's issue path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}

interface ParsedSource {
  file: string;
  data: unknown;
  /** Line number of a key path in the source (JSON or YAML). */
  lineOf(path: readonly PropertyKey[]): number | undefined;
}

/**
 * Parse a JSON or YAML file. JSON goes through `JSON.parse` (a 10 MB plan in tens of ms, where the
 * YAML parser takes seconds and a gigabyte); the YAML parser reads YAML files, reports syntax
 * errors with their line, and is asked for a key's line only when a JSON file has an error to
 * report. JSON with a repeated key is left to the YAML parser, which refuses it with its line, as
 * it refuses a repeated key in YAML (JSON.parse would keep the last value silently).
 */
export function parseSource(file: string, text: string): ParsedSource {
  return withinDepth(file, () => parseOnce(file, text));
}

/**
 * Data nested past what the readers recurse through (100,000 brackets deep) overflows the stack:
 * bad input naming its file, not a crash.
 */
function withinDepth<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (isStackOverflow(e)) throw new InputError(file, "", "nested too deeply to read");
    throw e;
  }
}

/** Whether a throw is V8's stack overflow: input nested deeper than a recursive reader goes. */
export const isStackOverflow = (e: unknown): boolean => e instanceof RangeError && /call stack/i.test(e.message);

function parseOnce(file: string, text: string): ParsedSource {
  let data = parsedByText.get(text);
  let yaml: ParsedSource | undefined;
  if (data === undefined) {
    const json = parseJson(text);
    if (json !== NOT_JSON) data = json.value;
    else {
      const kept = keptYaml(text);
      if (kept) data = kept.value;
      else {
        yaml = parseYaml(file, text);
        data = yaml.data;
        keepYaml(text, data);
      }
    }
    data = remember(text, data);
  }
  return { file, data, lineOf: (path) => (yaml ??= parseYaml(file, text)).lineOf(path) };
}

/**
 * Parsed data by source text. A sweep reads the corpus, then its report reads it again (and a
 * test process reads it many times): the same text parses to the same data, so it is parsed
 * once. The data is frozen, so no reader can change what the next one gets (readers validate it
 * with zod, which builds its own output). Bounded by the text it holds.
 */
const parsedByText = new Map<string, unknown>();
const MAX_REMEMBERED_CHARS = 32 * 1024 * 1024;
let rememberedChars = 0;

function remember(text: string, data: unknown): unknown {
  if (rememberedChars + text.length > MAX_REMEMBERED_CHARS) {
    parsedByText.clear();
    rememberedChars = 0;
  }
  parsedByText.set(text, deepFreeze(data));
  rememberedChars += text.length;
  return data;
}

const NOT_JSON = Symbol("not JSON");

/** The value of a JSON text without repeated keys, or NOT_JSON. */
function parseJson(text: string): { value: unknown } | typeof NOT_JSON {
  if (!/^\s*[{[]/.test(text)) return NOT_JSON;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
  return keysOf(value) === keyTokens(text) ? { value } : NOT_JSON;
}

/** How many members the parsed objects hold, nested ones included. */
function keysOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const v of value) n += keysOf(v);
    return n;
  }
  for (const key in value) n += 1 + keysOf((value as Record<string, unknown>)[key]);
  return n;
}

/** How many object keys a valid JSON text writes: strings followed by a colon. More than keysOf means a repeat. */
function keyTokens(text: string): number {
  let n = 0;
  for (let open = text.indexOf('"'); open !== -1;) {
    let close = text.indexOf('"', open + 1);
    while (isEscaped(text, close)) close = text.indexOf('"', close + 1);
    let next = close + 1;
    while (isJsonSpace(text.charCodeAt(next))) next++;
    if (text.charCodeAt(next) === COLON) n++;
    open = text.indexOf('"', next);
  }
  return n;
}

const COLON = 0x3a;
const BACKSLASH = 0x5c;

/** A quote preceded by an odd run of backslashes is part of the string. */
function isEscaped(text: string, quote: number): boolean {
  let i = quote - 1;
  while (text.charCodeAt(i) === BACKSLASH) i--;
  return (quote - 1 - i) % 2 === 1;
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The YAML parser is loaded on first use: a command that reads only JSON never pays for it. */
let yamlModule: typeof import("yaml") | undefined;
const yaml = () => (yamlModule ??= createRequire(import.meta.url)("yaml") as typeof import("yaml"));

function parseYaml(file: string, text: string): ParsedSource {
  const { isMap, isSeq, LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(text, { ...YAML_OPTIONS, lineCounter });
  const first = doc.errors[0];
  if (first) {
    // prettyErrors is off, so the error carries only offsets: map the first one to a line.
    const line = lineCounter.linePos(first.pos[0]).line;
    throw new InputError(file, "", `not valid YAML or JSON: ${first.message.split("\n")[0]}`, line);
  }
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (e) {
    // The parser refuses some documents only when it builds their value (an alias bomb: "Excessive alias count").
    throw new InputError(file, "", `not valid YAML: ${(e as Error).message.split("\n")[0]}`);
  }
  return {
    file,
    data,
    lineOf(path) {
      let node: unknown = doc.contents;
      let lastRange: [number, number, number] | undefined;
      for (const key of path) {
        if (isMap(node)) {
          const pair = node.items.find((it) => (it.key as { value?: unknown } | null)?.value === key);
          if (!pair) break;
          lastRange = (pair.key as { range?: [number, number, number] }).range;
          node = pair.value;
        } else if (isSeq(node) && typeof key === "number") {
          node = node.items[key];
          lastRange = (node as { range?: [number, number, number] } | undefined)?.range;
        } else break;
      }
      const offset = lastRange?.[0] ?? (doc.contents as { range?: number[] } | null)?.range?.[0];
      return offset === undefined ? undefined : lineCounter.linePos(offset).line;
    },
  };
}

/** A file's path and its text, as read. */
export interface FileText {
  file: string;
  text: string;
}

export const readTexts = (files: readonly string[]): FileText[] => files.map((file) => ({ file, text: readText(file) }));

export function readSource(file: string): ParsedSource {
  return parseSource(file, readText(file));
}

/** Whether `path` names a key that is absent from `data` (its parent exists and is an object). */
function isMissing(data: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false;
  let node: unknown = data;
  for (const key of path.slice(0, -1)) {
    if (node === null || typeof node !== "object") return false;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node !== null && typeof node === "object" && !Array.isArray(node) && !(path.at(-1)! in node);
}

/** Where a zod issue points and what it says; an unknown key is named in the path, a missing one said to be missing. */
export function issueAt(issue: z.core.$ZodIssue, data?: unknown): { keys: readonly PropertyKey[]; path: string; detail: string } {
  if (issue.code === "unrecognized_keys") {
    const keys = [...issue.path, issue.keys[0]!];
    return { keys, path: formatPath(keys), detail: `unknown key "${issue.keys[0]}"` };
  }
  // A custom check on an absent key says what it wants in its own words.
  const detail = data !== undefined && issue.code !== "custom" && isMissing(data, issue.path) ? "missing (a required key)" : issue.message;
  return { keys: issue.path, path: formatPath(issue.path), detail };
}

/** Validate parsed data with a zod schema; the first issue becomes an InputError. */
export function validate<S extends z.ZodType>(source: ParsedSource, schema: S): z.output<S> {
  const result = withinDepth(source.file, () => schema.safeParse(source.data));
  if (result.success) return result.data;
  const { keys, path, detail } = issueAt(result.error.issues[0]!, source.data);
  throw new InputError(source.file, path || "(root)", detail, source.lineOf(keys));
}

export function loadFile<S extends z.ZodType>(file: string, schema: S): z.output<S> {
  return validate(readSource(file), schema);
}

/** loadFile of a run folder's file (manifest.json, summary.json), opened as a run folder's files are (see openRunFile). */
export function loadRunFile<S extends z.ZodType>(file: string, schema: S): z.output<S> {
  const read = readRunText(file);
  if (read === null) throw new InputError(file, "", "file not found");
  return validate(parseSource(file, read.text), schema);
}
