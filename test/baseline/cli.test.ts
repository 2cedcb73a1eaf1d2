import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Manifest } from "../../harness/run/manifest.ts";
import { makeFixture, writeCorpus, writeRunDir, type ItemSpec } from "./builders.ts";

const BIN = join(import.meta.dirname, "../../bin/fieldtest.js");
const SEEDED = Array.from({ length: 8 }, (_, i) => `seeded-${i}`);
const CLEAN = Array.from({ length: 4 }, (_, i) => `clean-${i}`);

function specs(n: number, misses: number): ItemSpec[] {
  return [
    ...SEEDED.map((id, i) => ({ suite: "boundary" as const, id, verdicts: Array.from({ length: n }, (_, t) => (t < (i % 2 ? misses : 0) ? "pass" : "block")) })),
    ...CLEAN.map((id) => ({ suite: "boundary" as const, id, verdicts: Array<string>(n).fill("pass") })),
  ];
}

let root: string;
let hashes: Record<string, string>;
const corpus = () => join(root, "corpus");

function fieldtest(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args, "--corpus", corpus()], { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function runDir(name: string, items: ItemSpec[], patch?: (m: Manifest) => void): string {
  const dir = join(root, name);
  writeRunDir(dir, items, hashes, patch);
  return dir;
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "fieldtest-cli-"));
  hashes = writeCorpus(corpus(), [...SEEDED.map((id) => makeFixture(id, true)), ...CLEAN.map((id) => makeFixture(id, false))], []);
  writeFileSync(
    join(root, "policy.yaml"),
    ["version: 1", "min_trials_per_item: 3", "floors:", "  - { metric: critic_unavailable_rate, max: 0.1 }", "non_inferiority:", "  - { metric: underclaim_approvals, margin: 0.1 }", "  - { metric: label_flip_rate, margin: 0.2 }", ""].join("\n"),
  );
  expect(fieldtest("baseline", "publish", runDir("base", specs(5, 1)), "--out", join(root, "baselines", "base.json")).code).toBe(0);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("fieldtest baseline, diff and gate (CLI)", () => {
  it("publishes a schema-valid baseline with the run's decision context", () => {
    const b = JSON.parse(readFileSync(join(root, "baselines", "base.json"), "utf8"));
    expect(b).toMatchObject({ kind: "fieldtest-snapshot", name: "base", run_id: "run-1", trials_per_item: 5, canary_passed: true });
    expect(b.decision_context.critic).toMatchObject({ provider: "sim", model: "sim-critic", temperature: 0.2, system_prompt_sha256: "sys" });
    expect(b.items).toHaveLength(12);
  });

  it("diff --json attributes a temperature change and exits 0 (without it the same deltas are unexplained: diff.test.ts)", () => {
    // Every seeded fixture now passes every trial: decisive changes on unanimous baseline items.
    const worse = specs(5, 1).map((s) => (s.id.startsWith("seeded") ? { ...s, verdicts: Array<string>(5).fill("pass") } : s));
    const withCause = fieldtest("diff", runDir("temp", worse, (m) => void (m.roles.critic.temperature = 1)), "--baseline", join(root, "baselines", "base.json"), "--json");
    expect(withCause.code).toBe(0);
    const d = JSON.parse(withCause.stdout);
    expect(d.deltas.length).toBeGreaterThan(0);
    expect(d.unexplained).toEqual([]);
    expect(d.differences.map((x: { part: string }) => x.part)).toEqual(["critic.temperature"]);
  });

  it("gate exits 0 on an unchanged run, 1 naming the metric on a raised under-claim rate, 2 on one trial", () => {
    const policy = ["--baseline", join(root, "baselines", "base.json"), "--policy", join(root, "policy.yaml")];
    const same = fieldtest("gate", runDir("same", specs(5, 1)), ...policy);
    expect([same.code, same.stdout.trim().split("\n").at(-1)]).toEqual([0, "gate: pass"]);
    expect(existsSync(join(root, "same", "gate-junit.xml"))).toBe(true);
    const raised = fieldtest("gate", runDir("raised", specs(5, 4), (m) => void (m.roles.critic.model = "worse")), ...policy);
    expect(raised.code).toBe(1);
    expect(raised.stdout).toContain("gate: regression in underclaim_approvals");
    const one = fieldtest("gate", runDir("one", specs(1, 0)), ...policy);
    expect(one.code).toBe(2);
    expect(one.stdout).toContain("gate: inconclusive: needs at least 3 trials per item");
  });

  it("bad input is one line naming the file and key path, exit 2", () => {
    writeFileSync(join(root, "bad-policy.yaml"), "version: 1\nfloors:\n  - { metric: x, max: 1, onn: value }\n");
    const r = fieldtest("gate", join(root, "same"), "--baseline", join(root, "baselines", "base.json"), "--policy", join(root, "bad-policy.yaml"));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain('bad-policy.yaml:3: floors[0].onn: unknown key "onn"');
  });
});
