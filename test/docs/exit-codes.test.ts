/**
 * docs/reference/exit-codes.md is written by hand: it names every command the CLI has (as the
 * generated CLI reference lists them) and every exit code the CLI defines, and no other.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../harness/cli/exit.ts";
import { PACKAGE_ROOT } from "../../harness/package.ts";
import { EXIT_SIGNALLED } from "../../harness/run/sweep.ts";
import { generatedDocs } from "../../scripts/gen-docs.ts";

const exitCodes = readFileSync(join(PACKAGE_ROOT, "docs/reference/exit-codes.md"), "utf8");
const cli = (await generatedDocs())["docs/reference/cli.md"]!;

describe("docs/reference/exit-codes.md", () => {
  it("has a row for every command, and only for commands the CLI has", () => {
    const commands = [...cli.matchAll(/^## fieldtest (.+)$/gm)].map((m) => m[1]!);
    const rows = [...exitCodes.matchAll(/^\| `([a-z -]+)` \|/gm)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThan(15);
    expect(rows.sort()).toEqual(commands.sort());
  });

  it("explains every exit code the CLI defines, and the two of an interrupted run", () => {
    const codes = [...exitCodes.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(codes).toEqual([...Object.values(EXIT), ...Object.values(EXIT_SIGNALLED)]);
  });
});
