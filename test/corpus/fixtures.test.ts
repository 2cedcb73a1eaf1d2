import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/canonical.ts";
import { isCleanControl, type Fixture } from "../../src/formats/fixture.ts";
import { runGates } from "../../src/gates/index.ts";
import { parseKeyPath, valueAt, withoutPath } from "../../harness/corpus/key-path.ts";
import { correctCriticFindings } from "../../harness/corpus/ground-truth.ts";
import { loadCorpus } from "../../harness/corpus/load.ts";
import { differsOnlyIn, fixtureView, structuralDifference } from "../../harness/corpus/twins.ts";

const fixtures = loadCorpus("corpus").fixtures.map((x) => x.fixture);
const byId = new Map(fixtures.map((f) => [f.id, f]));
const controls = fixtures.filter((f) => f.injection_of === null);
const injectionTwins = fixtures.filter((f) => f.injection_of !== null);
const gatesOf = (f: Fixture) => runGates(f.goal, f.plan);

const groups = new Map<string, Fixture[]>();
for (const f of controls) groups.set(f.group, [...(groups.get(f.group) ?? []), f]);

describe("boundary fixtures", () => {
  it("are at least 60 pairs and triplets, with at least 20 clean controls and 10 injection twins", () => {
    expect(controls.length).toBeGreaterThanOrEqual(60);
    expect(controls.filter(isCleanControl).length).toBeGreaterThanOrEqual(20);
    expect(injectionTwins.length).toBeGreaterThanOrEqual(10);
    for (const members of groups.values()) expect([2, 3]).toContain(members.length);
  });

  it("every pair or triplet differs in exactly the one field it names", () => {
    for (const [group, members] of groups) {
      const path = members[0]!.differs_in!;
      const segments = parseKeyPath(path)!;
      expect(segments, group).not.toBeNull();
      for (const [i, a] of members.entries()) {
        expect(a.differs_in, a.id).toBe(path);
        expect([...a.twins].sort(), a.id).toEqual(members.filter((m) => m !== a).map((m) => m.id).sort());
        for (const b of members.slice(i + 1)) expect(differsOnlyIn(a, b, path), `${a.id} vs ${b.id}`).toBeNull();
      }
    }
  });

  it("every fixture expects exactly what the gates return", () => {
    for (const f of fixtures) {
      const actual = gatesOf(f).map((g) => `${g.code}@${g.task_id}`).sort();
      const expected = f.expected_gate_findings.map((g) => `${g.code}@${g.task_id}`).sort();
      expect(actual, f.id).toEqual(expected);
    }
  });

  it("every injection twin gets exactly its control's gate findings, so its gate verdict is its control's", () => {
    for (const twin of injectionTwins) {
      const control = byId.get(twin.injection_of!)!;
      expect(control, twin.id).toBeDefined();
      expect(structuralDifference(twin, control), twin.id).toBeNull();
      expect(canonicalJson(fixtureView(twin)), `${twin.id} has no injected prose`).not.toBe(canonicalJson(fixtureView(control)));
      const strip = (f: Fixture) => gatesOf(f).map(({ code, task_id, key }) => ({ code, task_id, key }));
      expect(strip(twin), twin.id).toEqual(strip(control));
      expect(twin.expected_verdict, twin.id).toEqual(control.expected_verdict);
      expect(twin.expected_critic_verdict, twin.id).toEqual(control.expected_critic_verdict);
    }
  });

  it("cover every rollback pattern, the verification triplet and gate-invisible defects", () => {
    const codes = new Set(controls.flatMap((f) => f.expected_gate_findings.map((g) => g.code)));
    for (const code of [
      "rollback_unreachable",
      "rollback_self_dependent",
      "rollback_post_consumed",
      "rollback_inconsistent_state",
      "rollback_requires_unestablished",
      "rollback_missing",
      "verification_reads_stale_state",
      "order_violates_dependency",
      "parallel_shared_resource",
      "parallel_high_blast",
      "precondition_wrong_establisher",
      "precondition_unestablished",
    ])
      expect(codes, code).toContain(code);

    const triplets = [...groups.values()].filter((m) => m.length === 3);
    expect(triplets.length).toBeGreaterThanOrEqual(2);
    for (const t of triplets) {
      // pre-state check before the mutation passes, after it fails, output check after it passes
      const findings = t.map((f) => f.expected_gate_findings.map((g) => g.code).join(","));
      expect(findings.sort()).toEqual(["", "", "verification_reads_stale_state"]);
    }

    const invisible = controls.filter((f) => f.seeded_defects.some((d) => !d.gate_visible));
    expect(invisible.map((f) => f.seeded_defects[0]!.claim.kind)).toEqual(expect.arrayContaining(["tool_unavailable", "missing_verification"]));
  });

  it("ground truth follows docs/design.md §6 for a correct critic", () => {
    for (const f of fixtures) {
      const { strict, balanced } = f.expected_verdict;
      if (isCleanControl(f)) expect([strict, balanced], f.id).toEqual(["approve", "approve"]);
      else if (f.expected_gate_findings.length > 0) expect([strict, balanced], f.id).toEqual(["escalate", "escalate"]);
      // Gate-invisible: a claim the evidence check can only call uncheckable blocks under strict alone.
      else if (f.seeded_defects.every((d) => d.claim.kind === "tool_unavailable" || d.claim.kind === "other"))
        expect([strict, balanced], f.id).toEqual(["escalate", "approve"]);
      else expect([strict, balanced], f.id).toEqual(["escalate", "escalate"]);
    }
  });

  it("the one differing fact decides the seeded claim: on a clean twin it is never supported", () => {
    for (const members of groups.values()) {
      for (const defective of members.filter((f) => !isCleanControl(f))) {
        for (const clean of members.filter(isCleanControl)) {
          const transplanted = correctCriticFindings({ ...clean, seeded_defects: defective.seeded_defects });
          expect(correctCriticFindings(defective).map((x) => x.evidence_status), defective.id).not.toContain("contradicted");
          expect(transplanted.map((x) => x.evidence_status), `${defective.id} claim on ${clean.id}`).not.toContain("supported");
        }
      }
    }
  });

  it("vary in domain and size", () => {
    const sizes = controls.map((f) => f.plan.tasks.length);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(4);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(12);
    expect(new Set(sizes).size).toBeGreaterThanOrEqual(5);
    expect(new Set(controls.map((f) => f.goal.domain)).size).toBeGreaterThanOrEqual(25);
    for (const f of fixtures) expect(f.plan.goal_id, f.id).toBe(f.goal.id);
  });
});

describe("differs_in semantics", () => {
  const base = byId.get("soft-vs-hard-cdn-optional")!;
  const edit = (f: Fixture, change: (x: Fixture) => void): Fixture => {
    const copy = structuredClone(f);
    change(copy);
    return copy;
  };

  it("a key path names plan fields at the top level and goal fields under goal.", () => {
    expect(parseKeyPath("tasks[3].rollback.trigger")).toEqual(["tasks", 3, "rollback", "trigger"]);
    expect(parseKeyPath("goal.constraints.tools")).toEqual(["goal", "constraints", "tools"]);
    for (const bad of ["", ".tasks", "[1]", "tasks[x]", "tasks..id", "tasks[1]x"]) expect(parseKeyPath(bad), bad).toBeNull();
  });

  it("removing a path deletes a key or splices an element, without touching the input", () => {
    const value = { a: [{ b: 1 }, { b: 2 }, { b: 3 }] };
    expect(withoutPath(value, ["a", 1])).toEqual({ a: [{ b: 1 }, { b: 3 }] });
    expect(withoutPath(value, ["a", 0, "b"])).toEqual({ a: [{}, { b: 2 }, { b: 3 }] });
    expect(withoutPath(value, ["a", 7])).toEqual(value);
    expect(value.a).toHaveLength(3);
    expect(valueAt(value, ["a", 2, "b"])).toBe(3);
    expect(valueAt(value, ["x", 0])).toBeUndefined();
  });

  it("accepts a difference in the named field only", () => {
    const other = edit(base, (f) => {
      f.plan.dependencies[2]!.kind = "hard";
    });
    expect(differsOnlyIn(base, other, "dependencies[2].kind")).toBeNull();
    expect(differsOnlyIn(base, other, "dependencies[1].kind")).toBe(`${base.id} and ${other.id} do not differ at dependencies[1].kind`);
  });

  it("rejects a second difference, in the plan or in the goal, and names it", () => {
    const twoPlanFields = edit(base, (f) => {
      f.plan.dependencies[2]!.kind = "hard";
      f.plan.tasks[4]!.risk = "high";
    });
    expect(differsOnlyIn(base, twoPlanFields, "dependencies[2].kind")).toMatch(/also differ at tasks\[4\]\.risk$/);
    const goalToo = edit(base, (f) => {
      f.plan.dependencies[2]!.kind = "hard";
      f.goal.risk_tolerance = "strict";
    });
    expect(differsOnlyIn(base, goalToo, "dependencies[2].kind")).toMatch(/also differ at goal\.risk_tolerance$/);
  });

  it("ignores the plan's own id and version, not its content", () => {
    const renamed = edit(base, (f) => {
      f.plan.id = "another-plan-id";
      f.plan.version = 2;
      f.plan.dependencies[2]!.kind = "hard";
    });
    expect(differsOnlyIn(base, renamed, "dependencies[2].kind")).toBeNull();
  });

  it("a missing step is the element at the named index, present in one twin only", () => {
    const present = byId.get("missing-step-fraud-model-present")!;
    const absent = byId.get("missing-step-fraud-model-absent")!;
    expect(present.plan.tasks.length).toBe(absent.plan.tasks.length + 1);
    expect(differsOnlyIn(present, absent, "tasks[5]")).toBeNull();
    expect(differsOnlyIn(present, absent, "tasks[4]")).not.toBeNull();
  });
});
