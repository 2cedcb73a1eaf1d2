/**
 * Reading the repository's Markdown and text files as the docs tests need them: the files, the
 * headings (outside fenced code), GitHub's heading anchors, and the relative links.
 */
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** Folders that hold no source of the repository's own: installs, builds, run output. */
const NOT_SOURCE = new Set([".git", "node_modules", "dist", "runs", "reports", "test-artifacts", ".fieldtest-cache"]);

/** Every file under `root` whose name ends with one of `exts`, as paths relative to root with `/`. */
export function repositoryFiles(root: string, exts: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!NOT_SOURCE.has(entry.name)) walk(join(dir, entry.name));
      } else if (exts.some((e) => entry.name.endsWith(e))) {
        out.push(relative(root, join(dir, entry.name)).split(sep).join("/"));
      }
    }
  };
  walk(root);
  return out.sort();
}

/** The lines of a Markdown text outside fenced code blocks, with their 1-based line numbers. */
export function proseLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | null = null;
  text.split("\n").forEach((line, i) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return;
    }
    if (fence === null) out.push({ line: i + 1, text: line });
  });
  return out;
}

/** The ATX headings of a Markdown text (outside fenced code): level and text. */
export function headings(text: string): { level: number; text: string }[] {
  return proseLines(text).flatMap(({ text: line }) => {
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    return m ? [{ level: m[1]!.length, text: m[2]! }] : [];
  });
}

/**
 * GitHub's anchor of a heading: its rendered text (code, emphasis and link markup gone) lower-cased,
 * every character but letters, digits, `_`, `-` and spaces dropped, spaces made `-`.
 */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*]/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a Markdown text's headings make; a repeated one gets -1, -2, ... as on GitHub. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(text)) {
    const base = slug(h.text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Links and images of a Markdown text (outside code) whose target is in the repository: no scheme, no `//`. */
export function relativeLinks(text: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  for (const { line, text: prose } of proseLines(text)) {
    const outsideCode = prose.replace(/`[^`]*`/g, "");
    const targets = [
      ...[...outsideCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
      ...[...outsideCode.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/g)].map((m) => m[1]!),
    ];
    for (const target of targets) if (!/^[a-z][a-z0-9+.-]*:|^\/\//i.test(target)) out.push({ line, target });
  }
  return out;
}
