/**
 * The README is a front page read in five minutes: at most 1,500 words, code blocks included. Its
 * set-up is exactly the two commands that CI (.ci/run) and the fresh-clone test run, and it sends
 * each of the four user journeys to its guide.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../harness/package.ts";

const read = (file: string) => readFileSync(join(PACKAGE_ROOT, file), "utf8");
const README = read("README.md");

/** Words as a reader counts them: runs of text holding a letter or a digit, code blocks included. */
const words = (text: string) => text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;

/** The commands of the fenced shell block under a heading, comments dropped. */
function commandsUnder(heading: string): string[] {
  const section = README.split(/^## /m).find((s) => s.startsWith(heading)) ?? "";
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
}

describe("README.md", () => {
  it("is at most 1,500 words, counting code blocks", () => {
    expect(words("two words, and `code` 1,500 — too")).toBe(6);
    expect(words(README)).toBeLessThanOrEqual(1500);
  });

  it("sets up with exactly the two commands CI and the fresh-clone test run", () => {
    expect(commandsUnder("Set-up")).toEqual(["npm ci && npx --no-install fieldtest run", "npm test"]);
    const ci = read(".ci/run")
      .split("\n")
      .filter((l) => l.trim() !== "" && !l.startsWith("#") && !/^(set|cd) /.test(l));
    expect(ci).toEqual(["npm ci", "npm test"]);
    const freshClone = read("test/ci/fresh-clone.test.ts");
    expect(freshClone).toContain('sh("npm ci && npx --no-install fieldtest run")');
    expect(freshClone).toContain('sh("npm test")');
  });

  it("says where the run lands and to open its report", () => {
    expect(README).toContain("runs/<timestamp>-<id>/");
    expect(README).toContain("Open `runs/<id>/report.html`");
    expect(README).toContain("](docs/report.png)");
  });

  it("invokes the CLI only as `npx --no-install fieldtest` (docs/design.md §9)", () => {
    expect(README.match(/\bnpx (?!--no-install fieldtest\b)\S+/g) ?? []).toEqual([]);
  });

  it("sends each user journey and domain packs to its guide, and the tour is ten lines", () => {
    for (const guide of ["nightly-regression", "model-swap-comparison", "drift-research", "field-testing-your-own-engine", "domain-packs"])
      expect(README).toContain(`](docs/guides/${guide}.md)`);
    expect(commandsUnder("A ten-line tour")).toHaveLength(10);
  });
});
