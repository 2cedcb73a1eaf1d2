import { readFileSync } from "node:fs";
import { isMap, isSeq, LineCounter, parseDocument, type Document } from "yaml";
import type { z } from "zod";
import { InputError } from "./input-error.ts";

export { InputError };

/** `tasks[2].kind` style path from zod's issue path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}

export interface ParsedSource {
  file: string;
  data: unknown;
  /** Line number of a key path in the source, when the source is YAML (JSON is YAML too). */
  lineOf(path: readonly PropertyKey[]): number | undefined;
}

export function parseSource(file: string, text: string): ParsedSource {
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const first = doc.errors[0];
  if (first) {
    // prettyErrors is off, so the error carries only offsets: map the first one to a line.
    const line = lineCounter.linePos(first.pos[0]).line;
    throw new InputError(file, "", `not valid YAML or JSON: ${first.message.split("\n")[0]}`, line);
  }
  return {
    file,
    data: doc.toJS(),
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

export function readSource(file: string): ParsedSource {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(file, "", code === "ENOENT" ? "file not found" : `cannot read file (${code ?? "error"})`);
  }
  return parseSource(file, text);
}

/** Validate parsed data with a zod schema; the first issue becomes an InputError. */
export function validate<S extends z.ZodType>(source: ParsedSource, schema: S): z.output<S> {
  const result = schema.safeParse(source.data);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  let path = issue.path;
  let detail = issue.message;
  if (issue.code === "unrecognized_keys") {
    path = [...issue.path, issue.keys[0]!];
    detail = `unknown key "${issue.keys[0]}"`;
  }
  throw new InputError(source.file, formatPath(path) || "(root)", detail, source.lineOf(path));
}

export function loadFile<S extends z.ZodType>(file: string, schema: S): z.output<S> {
  return validate(readSource(file), schema);
}
