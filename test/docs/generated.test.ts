/**
 * The generated reference (docs/reference/cli.md, formats.md, run-folder.md, configuration.md) is
 * what scripts/gen-docs.ts renders from the code now: a command, an option, a schema field or a
 * configuration key changed without `npm run docs` fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../harness/package.ts";
import { generatedDocs } from "../../scripts/gen-docs.ts";

const docs = await generatedDocs();

describe("the generated reference docs", () => {
  it.each(Object.keys(docs))("%s is up to date (npm run docs writes it)", (path) => {
    expect(readFileSync(join(PACKAGE_ROOT, path), "utf8"), `${path} is stale: run \`npm run docs\``).toBe(docs[path]);
  });

  it("name every command, every format and every configuration key", () => {
    const cli = docs["docs/reference/cli.md"]!;
    for (const name of [
      "run",
      "check",
      "critique",
      "plan",
      "engine check",
      "canary",
      "corpus validate",
      "schema",
      "report",
      "merge",
      "import planner-critic",
      "baseline publish",
      "diff",
      "gate",
      "compare",
      "trend",
      "research",
    ])
      expect(cli).toContain(`\n## fieldtest ${name}\n`);
    expect(cli).toContain("| `--budget-usd <x>` |");
    const formats = docs["docs/reference/formats.md"]!;
    for (const format of ["goal", "corpus-goal", "plan", "critic", "pack", "engine", "engine-result", "trial", "manifest", "summary", "journal"])
      expect(formats).toContain(`\n## ${format}\n`);
    expect(formats).toContain('| `tasks[].id` | string | yes | non-empty; matches `^[a-z0-9][a-z0-9_.-]*$`; not `"env"`;');
    expect(docs["docs/reference/configuration.md"]).toContain("| `budgetUsd` | number or null |");
    expect(docs["docs/reference/run-folder.md"]).toContain("| `spend.jsonl` |");
  });
});
