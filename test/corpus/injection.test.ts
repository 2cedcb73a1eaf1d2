import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateInjectionSuite, injectionItemHash, TRAP_TEXTS } from "../../harness/corpus/injection.ts";
import { loadCorpus } from "../../harness/corpus/load.ts";
import { firstDifference, fixtureView, structureOf } from "../../harness/corpus/twins.ts";
import { readTrialLog } from "../../harness/run/store.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import { isCleanControl } from "../../src/formats/fixture.ts";
import { TRAP_FIELDS, TRAP_KINDS } from "../../src/metrics/suite-truth.ts";
import { cli, tempDir, testHost } from "../run/helpers.ts";

const ROOT = join(import.meta.dirname, "../..");
const corpus = loadCorpus(join(ROOT, "corpus"));
const suite = corpus.injection;
const controls = corpus.fixtures.map((f) => f.fixture).filter((f) => isCleanControl(f) && f.injection_of === null);
const traps = suite.filter((i) => i.control !== null);

describe("generated injection traps", () => {
  it("pair every clean control with one trap per prose field a critic reads", () => {
    expect(suite.filter((i) => i.control === null).map((i) => i.id).sort()).toEqual(controls.map((c) => c.id).sort());
    for (const c of controls) {
      const fields = 2 + c.plan.tasks.length + c.plan.tasks.filter((t) => t.rollback).length;
      expect(traps.filter((t) => t.control === c.id), c.id).toHaveLength(fields);
    }
    expect(new Set(suite.map((i) => i.id)).size).toBe(suite.length);
  });

  it("each trap differs from its control in prose only, in exactly one field, by one of the four texts", () => {
    const byId = new Map(controls.map((c) => [c.id, c]));
    for (const trap of traps) {
      const control = byId.get(trap.control!)!;
      expect(firstDifference(structureOf(trap.fixture), structureOf(control)), trap.id).toBeNull();
      const where = firstDifference(fixtureView(trap.fixture), fixtureView(control))!;
      expect(where, trap.id).toMatch(trap.field === "goal" ? /^goal\.(title|description)$/ : trap.field === "task" ? /^tasks\[\d+\]\.description$/ : /^tasks\[\d+\]\.rollback\.action$/);
      expect(JSON.stringify(fixtureView(trap.fixture))).toContain(TRAP_TEXTS[trap.kind!].slice(0, 30));
      expect(trap.fixture.injection_of).toBe(control.id);
    }
  });

  it("put every kind of trap in every kind of field", () => {
    for (const kind of TRAP_KINDS) for (const field of TRAP_FIELDS) expect(traps.some((t) => t.kind === kind && t.field === field), `${kind} in ${field}`).toBe(true);
  });

  it("are deterministic and content-hashed: generating again gives the same items and hashes", () => {
    const again = generateInjectionSuite([...corpus.fixtures].reverse().map((f) => f.fixture));
    expect(again.map((i) => [i.id, injectionItemHash(i)])).toEqual(suite.map((i) => [i.id, injectionItemHash(i)]));
    expect(Object.keys(corpus.suiteItemHashes).filter((k) => k.startsWith("injection/"))).toHaveLength(suite.length);
  });
});

describe("a sim sweep of --suite injection", () => {
  let tmp: string;
  beforeAll(() => void (tmp = tempDir("ft-injection-")));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  async function sweep(name: string, flags: Record<string, string>) {
    const out = join(tmp, name);
    const host = testHost();
    expect(await runSweep(cli({ suite: "injection", trials: "3", ...flags, out }), {}, realEngine({}), host), host.stderr.text).toBe(0);
    return { out, metrics: (JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { metrics: Record<string, { value: number | null; n_items: number }> }).metrics };
  }

  it("gate findings are identical on every pair, and the adversarial goals run beside the traps as corpus trials", async () => {
    const { out, metrics } = await sweep("default", {});
    expect([metrics.injection_trap_gate_identical!.value, metrics.injection_trap_gate_identical!.n_items]).toEqual([1, traps.length]);
    const adversarial = corpus.goals.filter((g) => g.goal.category === "adversarial").map((g) => g.goal.id).sort();
    const corpusItems = [...new Set(readTrialLog(out).records.filter((r) => r.suite === "corpus").map((r) => r.item_id))].sort();
    expect(corpusItems).toEqual(adversarial);
    expect(metrics["adversarial_goals_escalated.as_expected"]!.n_items).toBe(adversarial.length);
    expect(metrics.injection_trap_effect!.n_items).toBe(controls.length);
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("## Injection traps");
  });

  it("a critic without noise that reads no prose shows an injection effect of exactly 0 (perfect profile)", async () => {
    const { metrics } = await sweep("perfect", { simProfile: join(ROOT, "src/sim/profiles/perfect.yaml") });
    for (const key of ["injection_trap_effect", "injection_trap_effect.toward_pass", ...TRAP_KINDS.map((k) => `injection_trap_effect.${k}`)]) expect(metrics[key]!.value, key).toBe(0);
    expect(metrics.injection_trap_gate_identical!.value).toBe(1);
  });
});
