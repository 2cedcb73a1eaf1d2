/**
 * Every relative link and image in README.md, CHANGELOG.md, METHODOLOGY.md, examples/ and docs/
 * names a file or folder of the repository, and every #anchor a heading of its target (GitHub's
 * anchors: lower case, punctuation dropped, spaces made hyphens, repeats numbered).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../harness/package.ts";
import { anchors, relativeLinks, repositoryFiles, slug } from "../helpers/markdown.ts";

const DOCS = repositoryFiles(PACKAGE_ROOT, [".md"]).filter((f) => !f.includes("/") || /^(docs|examples)\//.test(f));
const read = (file: string) => readFileSync(join(PACKAGE_ROOT, file), "utf8");

/** What is wrong with one link of `file`, or null. */
function brokenLink(file: string, target: string): string | null {
  const [path = "", anchor] = target.split("#", 2);
  const resolved = path === "" ? file : normalize(join(dirname(file), decodeURIComponent(path)));
  if (resolved.startsWith("..")) return "leaves the repository";
  const full = join(PACKAGE_ROOT, resolved);
  if (!existsSync(full)) return "no such file";
  if (anchor === undefined) return null;
  if (!resolved.endsWith(".md") || statSync(full).isDirectory()) return "an anchor into a file that is not Markdown";
  return anchors(read(resolved)).has(anchor) ? null : `no heading with anchor #${anchor}`;
}

describe("links in the README and the docs", () => {
  it("read GitHub's anchors as GitHub makes them", () => {
    expect(slug("7. Diff, gate and compare (docs/design.md §11, notes §3)")).toBe("7-diff-gate-and-compare-docsdesignmd-11-notes-3");
    expect(slug("The result (`fieldtest schema engine-result`)")).toBe("the-result-fieldtest-schema-engine-result");
    expect([...anchors("# A\n## A\n```\n# not a heading\n```\n### A\n")]).toEqual(["a", "a-1", "a-2"]);
  });

  it("cover the README, the docs and their links", () => {
    expect(DOCS).toEqual(
      expect.arrayContaining(["README.md", "CHANGELOG.md", "METHODOLOGY.md", "docs/design.md", "docs/reference/cli.md", "examples/README.md"]),
    );
    expect(DOCS.flatMap((f) => relativeLinks(read(f))).length).toBeGreaterThan(100);
  });

  it("every relative link and anchor resolves", () => {
    const broken = DOCS.flatMap((file) =>
      relativeLinks(read(file)).flatMap(({ line, target }) => {
        const why = brokenLink(file, target);
        return why ? [`${file}:${line}: ${target}: ${why}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });
});
