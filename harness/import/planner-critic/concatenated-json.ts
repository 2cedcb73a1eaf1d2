/**
 * The predecessor's `*_llm_log.jsonl` files are JSON objects written one after another, pretty
 * printed (`indent=2`) and appended across reruns; a crash can leave the last one torn. A JSON
 * string never holds a raw newline and pretty printing indents every nested value, so a line
 * that starts with `{` in column 0 starts a top-level object. Each object is read on its own: a
 * torn or malformed one is reported and the others stand. The same rule reads one-object-per-line
 * files.
 */

interface JsonChunk {
  /** 1-based line of the object's opening brace. */
  line: number;
  value: unknown;
}

interface JsonChunkProblem {
  line: number;
  /** `torn`: the file ends inside the object; `malformed`: a complete chunk that is not JSON; `stray`: text outside any object. */
  kind: "torn" | "malformed" | "stray";
  detail: string;
}

interface ConcatenatedJson {
  values: JsonChunk[];
  problems: JsonChunkProblem[];
}

export function splitConcatenatedJson(text: string): ConcatenatedJson {
  const lines = text.split("\n");
  const starts = lines.flatMap((l, i) => (l.startsWith("{") ? [i] : []));
  const values: JsonChunk[] = [];
  const problems: JsonChunkProblem[] = [];
  const head = lines.slice(0, starts[0] ?? lines.length).join("\n");
  if (head.trim() !== "") problems.push({ line: 1, kind: "stray", detail: "text before the first object" });
  starts.forEach((start, k) => {
    const end = starts[k + 1] ?? lines.length;
    const chunk = lines.slice(start, end).join("\n");
    try {
      values.push({ line: start + 1, value: JSON.parse(chunk) as unknown });
    } catch (e) {
      const last = k === starts.length - 1;
      // A last chunk whose braces never close is a torn write; anything else is malformed.
      const torn = last && !balanced(chunk);
      problems.push({ line: start + 1, kind: torn ? "torn" : "malformed", detail: torn ? "the file ends inside this object" : (e as Error).message });
    }
  });
  return { values, problems };
}

/** Whether the braces and brackets outside strings close (a cheap test for a truncated object). */
function balanced(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
  }
  return depth === 0 && !inString;
}
