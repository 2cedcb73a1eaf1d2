import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GATE_CODE_NAMES, GATE_IDS } from "../../src/formats/findings.ts";
import { InputError } from "../../src/formats/load.ts";
import { runCanaries } from "../../harness/canary.ts";

describe("gate canaries", () => {
  const report = runCanaries();

  it("pass with every gate enabled", () => {
    expect(report.failures).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it("cover every gate code with a must-fire case and a must-not-fire twin", () => {
    for (const code of GATE_CODE_NAMES) {
      const rows = report.results.filter((r) => r.code === code);
      expect([code, rows.some((r) => r.expect === "fire"), rows.some((r) => r.expect === "silent")]).toEqual([code, true, true]);
    }
  });

  it("include the verification triplet, the rollback twins and the precondition pair", () => {
    const fixtures = new Set(report.results.map((r) => r.fixture));
    for (const name of [
      "verification_order.yaml#pre-state-before",
      "verification_order.yaml#pre-state-after",
      "verification_order.yaml#output-after-reads-output",
      "rollback_credibility.yaml#credible",
      "rollback_credibility.yaml#unreachable",
      "rollback_credibility.yaml#self-dependent",
      "rollback_credibility.yaml#post-consumed",
      "rollback_credibility.yaml#inconsistent-state",
      "rollback_credibility.yaml#requires-unestablished",
      "preconditions_closed.yaml#established-before",
      "preconditions_closed.yaml#established-later",
      "preconditions_closed.yaml#established-concurrently",
    ])
      expect(fixtures).toContain(name);
  });

  it.each(GATE_IDS)("fail, naming the gate, when %s is disabled", (gate) => {
    const disabled = runCanaries({ skip: [gate] });
    expect(disabled.ok).toBe(false);
    expect(disabled.failures.length).toBeGreaterThan(0);
    for (const failure of disabled.failures) expect(failure.startsWith(`${gate}: `)).toBe(true);
  });
});

describe("canary runner", () => {
  const dir = mkdtempSync(join(tmpdir(), "fieldtest-canary-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const goal = "goal: {id: g, domain: d, title: t, description: d, risk_tolerance: strict}\n";
  const plan =
    "    plan: {id: p, goal_id: g, tasks: [{id: a, description: A, kind: read}, {id: b, description: B, kind: read}], dependencies: [{from: b, to: a}]}\n";

  it("reports a gate that fires on its must-not-fire twin, and an unexpected code, naming gate and fixture", () => {
    const sub = join(dir, "wrong");
    mkdirSync(sub);
    writeFileSync(join(sub, "x.yaml"), `description: x\n${goal}cases:\n  - name: c\n    note: n\n    silent_for: [order_violates_dependency]\n${plan}`);
    const r = runCanaries({ dir: sub });
    expect(r.ok).toBe(false);
    expect(r.results).toEqual([{ fixture: "x.yaml#c", code: "order_violates_dependency", expect: "silent", fired: true, ok: false }]);
    expect(r.failures).toContain("ordering_sane: x.yaml#c: order_violates_dependency fires on its must-not-fire twin");
    expect(r.failures).toContain("no_dep_cycles: no must-fire canary for dependency_cycle");
  });

  it("rejects a malformed canary file with an InputError naming the file", () => {
    const sub = join(dir, "bad");
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, "y.yaml"), `description: y\n${goal}cases:\n  - name: c\n    note: n\n    fires: [no_such_code]\n${plan}`);
    expect(() => runCanaries({ dir: sub })).toThrow(InputError);
  });
});

describe("runCanaries on a folder that does not exist", () => {
  it("is bad input naming the folder, not a crash", () => {
    expect(() => runCanaries({ dir: "/no/such/canaries" })).toThrow(InputError);
    expect(() => runCanaries({ dir: "/no/such/canaries" })).toThrow(/\/no\/such\/canaries: canary folder not found/);
  });
});
