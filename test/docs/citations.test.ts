/**
 * Every citation of the contract ("docs/design.md §n") and of METHODOLOGY.md names a section that
 * exists, in code, tests, scripts, docs and every Markdown, YAML or shell file of the repository,
 * and none uses the older forms ("DESIGN.md §n", "DESIGN §n") that named the copy outside it. Inside
 * docs/design.md and METHODOLOGY.md a bare "§n" is a citation of the file itself.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../harness/package.ts";
import { headings, repositoryFiles } from "../helpers/markdown.ts";

const DESIGN = "docs/design.md";
const METHODOLOGY = "METHODOLOGY.md";
const read = (file: string) => readFileSync(join(PACKAGE_ROOT, file), "utf8");

/** The section numbers a document's headings give: "## 8a.1 External engines" is 8a.1. */
function sections(file: string): Set<string> {
  return new Set(headings(read(file)).flatMap((h) => /^(\d+[a-z]?(?:\.\d+)*)\.?(?:\s|$)/.exec(h.text)?.[1] ?? []));
}

const NUMBER = String.raw`\d+[a-z]?(?:\.\d+)*`;
/** One cited number or range, with or without its own §: "§4.10", "§3–§5", "§4–5". */
const ITEM = String.raw`§?${NUMBER}(?:\s*[–-]\s*§?${NUMBER})?`;
/** The document a citation names; `notes` and methodology-notes.md are the design notes outside the repository. */
const PREFIX = String.raw`(docs/design\.md|DESIGN\.md|DESIGN|METHODOLOGY\.md|METHODOLOGY|methodology-notes\.md|methodology-notes|notes)`;
const CITATION = new RegExp(String.raw`${PREFIX}\`?\s*\(?(§${NUMBER}(?:\s*[–-]\s*§?${NUMBER})?(?:(?:,\s*|\s+and\s+)${ITEM})*)`, "g");
const BARE = new RegExp(String.raw`§(${NUMBER})`, "g");
/** The numbers of a citation's list: both ends of a range. */
const numbers = (list: string) => [...list.matchAll(new RegExp(NUMBER, "g"))].map((m) => m[0]);

type Target = typeof DESIGN | typeof METHODOLOGY | null;
const targetOf = (prefix: string): Target => (/^(docs\/design\.md|DESIGN)/.test(prefix) ? DESIGN : /^METHODOLOGY/.test(prefix) ? METHODOLOGY : null);

interface Citation {
  file: string;
  line: number;
  target: NonNullable<Target>;
  section: string;
}

/** The citations of one file: prefixed ones, then (in the two documents) their bare self-citations. */
function citationsIn(file: string): Citation[] {
  const self: Target = file === DESIGN ? DESIGN : file === METHODOLOGY ? METHODOLOGY : null;
  return read(file)
    .split("\n")
    .flatMap((text, i) => {
      const out: Citation[] = [];
      const rest = text.replace(CITATION, (_all, prefix: string, list: string) => {
        const target = targetOf(prefix);
        if (target) for (const section of numbers(list)) out.push({ file, line: i + 1, target, section });
        return " ".repeat(_all.length);
      });
      if (self) for (const m of rest.matchAll(BARE)) out.push({ file, line: i + 1, target: self, section: m[1]! });
      return out;
    });
}

/** This file, which names the old forms and the outside path to test for them. */
const SELF = "test/docs/citations.test.ts";
const FILES = repositoryFiles(PACKAGE_ROOT, [".ts", ".tsx", ".js", ".mjs", ".md", ".yaml", ".yml", ".sh", ".toml"]);
const CITATIONS = FILES.flatMap(citationsIn);

describe("citations of the contract and of METHODOLOGY.md", () => {
  it("read every form the repository uses, ranges and lists included", () => {
    const parse = (text: string) => [...text.matchAll(CITATION)].map((m) => `${targetOf(m[1]!) ?? "-"} ${numbers(m[2]!).join("+")}`);
    expect(parse("see DESIGN.md §3–§5 and docs/design.md §6.")).toEqual(["docs/design.md 3+5", "docs/design.md 6"]);
    expect(parse("(DESIGN.md §5, §6 and §10)")).toEqual(["docs/design.md 5+6+10"]);
    expect(parse("METHODOLOGY.md §4.10–4.11, METHODOLOGY §8b")).toEqual(["METHODOLOGY.md 4.10+4.11", "METHODOLOGY.md 8b"]);
    expect(parse("`DESIGN.md` (§8 trial records)")).toEqual(["docs/design.md 8"]);
    expect(parse("(notes §9.1, §12)")).toEqual(["- 9.1+12"]);
  });

  it("the two documents have numbered sections to cite", () => {
    expect([...sections(DESIGN)]).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"]);
    expect(sections(METHODOLOGY)).toContain("8a.1");
    // the test reads the repository, not a sample of it
    expect(CITATIONS.filter((c) => c.target === DESIGN).length).toBeGreaterThan(100);
    expect(CITATIONS.filter((c) => c.target === METHODOLOGY).length).toBeGreaterThan(20);
  });

  it("every cited section exists", () => {
    const known = { [DESIGN]: sections(DESIGN), [METHODOLOGY]: sections(METHODOLOGY) };
    const dangling = CITATIONS.filter((c) => !known[c.target].has(c.section)).map((c) => `${c.file}:${c.line}: ${c.target} §${c.section}`);
    expect(dangling).toEqual([]);
  });

  it("nothing says the contract lives outside the repository, or cites it by its old name", () => {
    const outside = FILES.filter((f) => f !== SELF && /\.\.\/shared\/|beside this repository/.test(read(f)));
    expect(outside).toEqual([]);
    const oldForm = FILES.filter((f) => f !== SELF).flatMap((file) =>
      [...read(file).matchAll(CITATION)].filter((m) => /^DESIGN/.test(m[1]!)).map((m) => `${file}: ${m[0]}`),
    );
    expect(oldForm).toEqual([]);
  });
});
