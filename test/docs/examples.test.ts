/**
 * examples/README.md's commands, run as written (in process, from the repository root; `runs/` in
 * a temporary folder), each with the exit code written beside it; then what each example claims.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../harness/package.ts";
import { readTrials } from "../../harness/run/store.ts";
import { runFieldtest, type CliResult } from "../helpers/cli.ts";
import { proseLines } from "../helpers/markdown.ts";

const README = readFileSync(join(PACKAGE_ROOT, "examples", "README.md"), "utf8");
const runs = mkdtempSync(join(tmpdir(), "ft-examples-"));
afterAll(() => rmSync(runs, { recursive: true, force: true }));

/** A command line's words, as a shell splits them (single quotes, no expansion). */
const words = (line: string) => [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);

/** Every `npx --no-install fieldtest ... # exit N` line of the README's code blocks, in order. */
const prose = new Set(proseLines(README).map((p) => p.line));
const COMMANDS = README.split("\n")
  .filter((_line, i) => !prose.has(i + 1))
  .flatMap((line) => {
    const m = /^npx --no-install fieldtest (.*?)\s+# exit (\d)$/.exec(line);
    return m ? [{ line, args: words(m[1]!).map((w) => w.replace(/^runs\//, `${runs}/`)), exit: Number(m[2]) }] : [];
  });

describe("examples/README.md", () => {
  const results = new Map<string, CliResult>();

  it("every command exits as the README says", async () => {
    expect(COMMANDS.length).toBeGreaterThanOrEqual(9);
    for (const c of COMMANDS) {
      const r = await runFieldtest(c.args);
      results.set(c.line, r);
      expect({ line: c.line, code: r.code, stderr: r.code === c.exit ? "" : r.stderr }).toEqual({ line: c.line, code: c.exit, stderr: "" });
    }
  }, 120_000);

  const output = (fragment: string) => [...results.entries()].find(([line]) => line.includes(fragment))?.[1]?.stdout ?? "";

  it("the blocked plan names its two findings on their tasks", () => {
    const out = output("plan-blocked.json");
    expect(out).toMatch(/^blocked: 2 gate blockers/);
    expect(out).toMatch(/rebuild_index\n\s+rollback_missing /);
    expect(out).toMatch(/check_replication_lag\n\s+verification_reads_stale_state /);
  });

  it("the critic's two blockers are downgraded, one for its evidence, one for its family", () => {
    const out = output("critic-response.json");
    expect(out).toContain("{downgraded_evidence_rejected} on rebuild_index: does not block");
    expect(out).toContain("{downgraded_not_blocker_eligible} on rebuild_index: does not block");
  });

  it("the change-freeze pack blocks the plan only during a freeze", () => {
    expect(output("goal-freeze.yaml")).toContain("high_blast_change_in_freeze [pack.change-freeze, feasibility]: task rebuild_index");
  });

  it("the replayed run answers every call from the recording: same verdicts, nothing sent", () => {
    const original = readTrials(join(runs, "original"));
    const replayed = readTrials(join(runs, "replayed"));
    expect(original).toHaveLength(6);
    expect(replayed.map((t) => [t.item_id, t.trial, t.status])).toEqual(original.map((t) => [t.item_id, t.trial, t.status]));
    const calls = replayed.flatMap((t) => t.calls);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.cached)).toBe(true);
    expect(output("compare runs/replayed")).toMatch(/changed items: 0/);
  });

  it("docs/guides/domain-packs.md shows the shipped change-freeze pack as it is", () => {
    const guide = readFileSync(join(PACKAGE_ROOT, "docs", "guides", "domain-packs.md"), "utf8");
    const yamlBlocks = [...guide.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const shipped = (file: string) => readFileSync(join(PACKAGE_ROOT, "examples", "change-freeze", file), "utf8").replace(/^(#.*\n)+/, "");
    expect(yamlBlocks).toEqual([shipped("pack.yaml"), shipped(join("canaries", "freeze.yaml"))]);
  });
});
