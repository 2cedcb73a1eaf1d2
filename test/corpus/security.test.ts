import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCorpus } from "../../harness/corpus/load.ts";
import { checkSecuritySuite, loadSecuritySuite, SECURITY_SUITE_PACKS } from "../../harness/corpus/security.ts";
import { readManifest } from "../../harness/run/manifest.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import { loadPacks } from "../../src/packs/load.ts";
import { cli, tempDir, testHost } from "../run/helpers.ts";

const ROOT = join(import.meta.dirname, "../..");
const items = loadSecuritySuite(join(ROOT, "corpus"));
const packs = loadPacks(SECURITY_SUITE_PACKS);
let tmp: string;
beforeAll(() => void (tmp = tempDir("ft-security-")));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("the security oracle suite", () => {
  it("has at least 35 flawed and 7 correct CWE-grounded variants; every goal has both kinds", () => {
    const flawed = items.filter((i) => i.kind === "flawed");
    const correct = items.filter((i) => i.kind === "correct");
    expect(flawed.length).toBeGreaterThanOrEqual(35);
    expect(correct.length).toBeGreaterThanOrEqual(7);
    for (const i of items) expect(i.cwe).toMatch(/^CWE-\d+$/);
    const groups = new Set(items.map((i) => i.group));
    for (const g of groups) expect(new Set(items.filter((i) => i.group === g).map((i) => i.kind))).toEqual(new Set(["flawed", "correct"]));
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
  });

  it("its ground truth holds: each flawed variant gets exactly the gate and pack findings it names, each correct one none", () => {
    expect(checkSecuritySuite(items, packs)).toEqual([]);
  });

  it("needs both the gates and the security pack: without the pack most flawed variants go uncaught", () => {
    const uncaught = checkSecuritySuite(items, []).filter((p) => p.message.includes("do not return"));
    expect(uncaught.length).toBeGreaterThan(items.filter((i) => i.kind === "flawed").length / 2);
    // The flawed variants whose every named catch is a built-in gate's code, derived from the packs' own rules.
    const packCodes = new Set(packs.flatMap((p) => p.rules.map((r) => r.code)));
    const gateCaught = items.filter((i) => i.kind === "flawed" && i.catches.every((c) => !packCodes.has(c.code)));
    expect(gateCaught.length).toBeGreaterThan(5);
    // Those the gates alone catch exactly as the ground truth says (judged without their correct twins).
    expect(checkSecuritySuite(gateCaught, []).filter((p) => !p.message.includes("needs a flawed and a correct variant"))).toEqual([]);
  });

  it("a variant's patch that names a missing task, or an order that is not a permutation, is invalid input naming file and variant", () => {
    const root = join(tmp, "bad-corpus");
    cpSync(join(ROOT, "corpus"), root, { recursive: true });
    const file = join(root, "security", "sec-sqli-hotfix.yaml");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace("set: {deploy_fix: {mutates:", "set: {deploy_fx: {mutates:"));
    expect(() => loadSecuritySuite(root)).toThrow(/sec-sqli-hotfix\.yaml:\d+: variants\[5\]\.patch\.set\.deploy_fx: "deploy_fx" is not a task of the plan/);
    writeFileSync(file, text.replace("order: [record_build, deploy_fix, run_sqli_regression, verify_fix, notify_security]", "order: [record_build, deploy_fix]"));
    expect(() => loadSecuritySuite(root)).toThrow(/variants\[2\]\.patch\.order: must name every task once/);
    writeFileSync(file, text.replace("patch: {constraints: {facts: []}}", "patch: {set: {deploy_fix: {kind: deploy}}}"));
    expect(() => loadSecuritySuite(root)).toThrow(/variants\[6\].plan: tasks\[2\]\.kind:/);
    // A key the patched plan lacks is named as missing, as every other loader says it.
    writeFileSync(file, text.replace("task: {id: soak, description: Watch error rates for an hour, kind: wait}", "task: {id: soak, description: Watch error rates for an hour}"));
    expect(() => loadSecuritySuite(root)).toThrow(/\.plan: tasks\[\d+\]\.kind: missing \(a required key\)/);
  });

  it("enters the corpus record of a run only when the run selects it", () => {
    const corpus = loadCorpus(join(ROOT, "corpus"));
    expect(Object.keys(corpus.itemHashes).some((k) => k.startsWith("security/"))).toBe(false);
    expect(Object.keys(corpus.suiteItemHashes).filter((k) => k.startsWith("security/"))).toHaveLength(items.length);
  });
});

describe("a default sim sweep of --suite security", () => {
  it.each([0, 1, 2])("blocks every flawed variant and passes every correct one, per CWE in the summary (seed %i)", async (seed) => {
    const out = join(tmp, `sweep-${seed}`);
    const host = testHost();
    expect(await runSweep(cli({ suite: "security", seed: String(seed), out }), {}, realEngine({}), host), host.stderr.text).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { metrics: Record<string, { value: number | null; n_items: number; n_trials: number }> };
    const m = summary.metrics;
    const flawed = items.filter((i) => i.kind === "flawed");
    expect([m.security_flawed_blocked!.value, m.security_flawed_blocked!.n_items, m.security_flawed_blocked!.n_trials]).toEqual([1, flawed.length, flawed.length * 5]);
    expect(m["security_flawed_blocked.by_finding"]!.value).toBe(1);
    expect([m.security_correct_passed!.value, m.security_correct_passed!.n_items]).toEqual([1, items.length - flawed.length]);
    for (const cwe of new Set(flawed.map((i) => i.cwe))) expect(m[`security_flawed_blocked.${cwe}`]!.value, cwe).toBe(1);
    for (const cwe of new Set(items.filter((i) => i.kind === "correct").map((i) => i.cwe))) expect(m[`security_correct_passed.${cwe}`]!.value, cwe).toBe(1);
    expect(host.stdout.text).toMatch(/security_flawed_blocked\s+1 \[0\.98\d*, 1\]/);
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("## Security oracle");
    // The suite is gated with the shipped security pack, recorded like any pack.
    expect(readManifest(out).gate_versions["pack.security"]).toMatch(/^security@\d+\.\d+\.\d+ sha256:/);
  });
});
