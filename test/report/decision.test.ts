import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GateResult } from "../../harness/baseline/gate.ts";
import { gateVerdict } from "../../harness/baseline/judge.ts";
import type { Manifest } from "../../src/formats/manifest.ts";
import { makeFixture, writeCorpus, writeRunDir, type ItemSpec } from "../baseline/builders.ts";
import { fieldtest } from "../helpers/cli.ts";

/** report --baseline shows exactly the gate's verdict: both CLIs run on the same run, baseline and policy. */

const SEEDED = Array.from({ length: 8 }, (_, i) => `seeded-${i}`);
const CLEAN = Array.from({ length: 4 }, (_, i) => `clean-${i}`);

function specs(n: number, misses: number, cleanBlocks = 0): ItemSpec[] {
  return [
    ...SEEDED.map((id, i) => ({
      suite: "boundary" as const,
      id,
      verdicts: Array.from({ length: n }, (_, t) => (t < (i % 2 ? misses : 0) ? "pass" : "block")),
    })),
    ...CLEAN.map((id) => ({ suite: "boundary" as const, id, verdicts: Array.from({ length: n }, (_, t) => (t < cleanBlocks ? "block" : "pass")) })),
  ];
}

let root: string;
let hashes: Record<string, string>;
const corpus = () => join(root, "corpus");
const baseline = () => join(root, "base.json");
const policy = () => join(root, "policy.yaml");

const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** The banner of report.html as data: decision, exit, failed names, and every listed (non-passing) check. */
function banner(html: string) {
  const head = /<div class="banner (\w+)" id="verdict" data-decision="(\w+)" data-exit="(\d)" data-failed="([^"]*)">/.exec(html);
  if (!head) throw new Error("no verdict banner");
  const checks = [...html.matchAll(/<li data-check="([^"]+)" data-outcome="(\w+)"><b>\w+<\/b> <code>[^<]*<\/code>: ([^<]*)<\/li>/g)].map((m) => ({
    name: unescape(m[1]!),
    outcome: m[2]!,
    message: unescape(m[3]!),
  }));
  const verdict = /<p><code>([^<]*)<\/code> \(exit \d, as <code>fieldtest gate<\/code> decides\)<\/p>/.exec(html)?.[1];
  return {
    css: head[1],
    decision: head[2],
    exit: Number(head[3]),
    failed: head[4] === "" ? [] : unescape(head[4]!).split(","),
    checks,
    verdict: verdict && unescape(verdict),
  };
}

function runDir(name: string, items: ItemSpec[], patch?: (m: Manifest) => void): string {
  const dir = join(root, name);
  writeRunDir(dir, items, hashes, patch);
  return dir;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "fieldtest-decision-"));
  hashes = writeCorpus(corpus(), [...SEEDED.map((id) => makeFixture(id, true)), ...CLEAN.map((id) => makeFixture(id, false))], []);
  writeFileSync(
    policy(),
    [
      "version: 1",
      "min_trials_per_item: 3",
      "floors:",
      "  - { metric: critic_unavailable_rate, max: 0.1 }",
      "  - { metric: overclaim_rate, max: 0.3 }",
      "non_inferiority:",
      "  - { metric: underclaim_approvals, margin: 0.1 }",
      "  - { metric: label_flip_rate, margin: 0.2 }",
      "  - { metric: overclaim_rate, margin: 0.05 }",
      "",
    ].join("\n"),
  );
  expect((await fieldtest("baseline", "publish", runDir("base", specs(5, 1)), "--out", baseline(), "--corpus", corpus())).code).toBe(0);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const CASES: [string, () => string, GateResult["decision"]][] = [
  ["an unchanged run", () => runDir("same", specs(5, 1)), "pass"],
  ["a critic that misses more and blocks clean plans", () => runDir("worse", specs(5, 4, 2)), "regression"],
  ["a run with fewer trials than pre-registered", () => runDir("short", specs(2, 0)), "inconclusive"],
  [
    "a run whose canary failed",
    () => runDir("canary", specs(5, 1), (m) => (m.canary = { ok: false, failures: ["ordering_sane silent"], results: null })),
    "infrastructure",
  ],
];

describe("report --baseline shows the gate's exact verdict", () => {
  it.each(CASES)("%s: the same decision, exit code, failed checks and messages as fieldtest gate --json", async (_name, make, expected) => {
    const dir = make();
    const gate = await fieldtest("gate", dir, "--baseline", baseline(), "--policy", policy(), "--corpus", corpus(), "--json");
    const result = JSON.parse(gate.stdout) as GateResult;
    expect(result.decision).toBe(expected);
    expect(gate.code).toBe(result.exit);
    // The verdict line `fieldtest gate` prints last (its text mode ends with gateVerdict of the same result).
    const text = gateVerdict(result);

    const report = await fieldtest("report", dir, "--baseline", baseline(), "--policy", policy(), "--corpus", corpus());
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout.trimEnd().split("\n").at(-1)).toBe(text);
    const shown = banner(readFileSync(join(dir, "report.html"), "utf8"));
    expect(shown).toEqual({
      css: result.decision,
      decision: result.decision,
      exit: result.exit,
      failed: result.failed,
      checks: result.checks.filter((c) => c.outcome !== "pass").map((c) => ({ name: c.name, outcome: c.outcome, message: c.message })),
      verdict: text,
    });
    const md = readFileSync(join(dir, "report.md"), "utf8");
    expect(md).toContain(`**${text}** (exit ${result.exit})`);
    for (const c of result.checks.filter((c) => c.outcome !== "pass")) expect(md).toContain(`- ${c.outcome} \`${c.name}\`: ${c.message}`);
    // Every Δ in the table says what its interval rests on: paired items, or why there is none.
    const section = md.slice(md.indexOf("## Decision"), md.indexOf("## Metrics"));
    const deltas = section.split("\n").filter((l) => /^\| `[a-z0-9_.]+` \|/.test(l));
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.some((row) => / paired over \d+ items \|/.test(row))).toBe(true);
    for (const row of deltas)
      expect(row, row).toMatch(
        /\| (n\/a \(no value in (the baseline|this run)\)|-?[\d.e-]+ \[[^\]]+\] paired over \d+ items|-?[\d.e-]+ (paired over \d+ items|\(not paired\)); no interval: [^|]+) \|/,
      );
  });

  it("names the failing metrics of a regression in the banner", () => {
    const shown = banner(readFileSync(join(root, "worse", "report.html"), "utf8"));
    expect(shown.failed).toEqual(expect.arrayContaining(["underclaim_approvals", "floor:overclaim_rate"]));
  });

  it("without a baseline says there is no decision; a policy alone is bad input", async () => {
    const dir = runDir("plain", specs(5, 1));
    expect((await fieldtest("report", dir, "--corpus", corpus())).code).toBe(0);
    expect(readFileSync(join(dir, "report.html"), "utf8")).toContain('id="verdict" data-decision="none"');
    const bad = await fieldtest("report", dir, "--policy", policy(), "--corpus", corpus());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("fieldtest: command line: --policy: needs --baseline FILE\n");
  });

  it("a policy the runs cannot judge is bad input naming the policy file, as for the gate", async () => {
    const dir = runDir("judged", specs(5, 1));
    const wrong = join(root, "wrong.yaml");
    writeFileSync(wrong, "version: 1\nfloors:\n  - { metric: no_such_metric, max: 0 }\n");
    const gate = await fieldtest("gate", dir, "--baseline", baseline(), "--policy", wrong, "--corpus", corpus());
    const report = await fieldtest("report", dir, "--baseline", baseline(), "--policy", wrong, "--corpus", corpus());
    expect(report.code).toBe(2);
    expect(gate.code).toBe(2);
    expect(report.stderr).toBe(gate.stderr);
    expect(report.stderr).toContain("wrong.yaml");
  });
});
