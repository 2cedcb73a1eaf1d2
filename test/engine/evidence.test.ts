import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkEvidence } from "../../src/critic/evidence.ts";
import type { EvidenceStatus } from "../../src/formats/findings.ts";
import { runGates } from "../../src/gates/index.ts";
import { anyPlanOf } from "../helpers/arbitrary-plans.ts";
import { hard, makeGoal, makePlan, mutate, read, verify } from "../helpers/plans.ts";
import { SOUND } from "./fixtures.ts";

const goal = makeGoal(["window_booked"], { constraints: { facts: ["window_booked"], tools: ["psql"] } });

/**
 * One plan with a defect for every claim kind, beside sound parts the same claims are false for:
 * migrate's rollback restores db but not index, and needs db.snapshot that purge destroys before
 * the trigger; late_check checks migrate's pre-state after it; cleanup has neither rollback nor
 * output check and needs cache_warm, which warm establishes only after it.
 */
const plan = makePlan(
  [
    read("snapshot", {
      preconditions: [{ fact: "window_booked", established_by: "env" }],
      establishes: ["snapshot_taken"],
      produces: ["db.snapshot"],
    }),
    verify("check_pre", "migrate", "pre_state"),
    mutate("migrate", {
      risk: "high",
      mutates: ["db", "index"],
      produces: ["db.report"],
      preconditions: [{ fact: "snapshot_taken", established_by: "snapshot" }],
      rollback: { trigger: "verify_migrate", action: "restore", requires: ["snapshot_taken", "db.snapshot"], restores: ["db"] },
    }),
    mutate("purge", { destroys: ["db.snapshot"] }),
    verify("verify_migrate", "migrate", "mutation_output", ["db.report"]),
    verify("late_check", "migrate", "pre_state"),
    mutate("cleanup", { preconditions: [{ fact: "cache_warm" }] }),
    read("warm", { establishes: ["cache_warm"] }),
  ],
  [hard("snapshot", "migrate"), hard("migrate", "verify_migrate")],
);

const status = (claim: string, tasks: string[], facts: string[] = [], task_id: string | null = null, p = plan) =>
  checkEvidence(goal, p, { task_id, evidence: { claim, tasks, facts } }).status;

describe("checkEvidence: every claim kind", () => {
  const cases: [string, string[], string[], EvidenceStatus][] = [
    // misordered [a, b]: a does not wait for its prerequisite b.
    ["misordered", ["cleanup", "warm"], [], "supported"],
    ["misordered", ["migrate", "snapshot"], [], "contradicted"], // the order the plan already satisfies
    ["misordered", ["verify_migrate", "migrate"], [], "contradicted"],
    ["misordered", ["snapshot", "migrate"], [], "uncheckable"], // no dependency, and b does not run first
    ["misordered", ["check_pre", "migrate"], [], "uncheckable"], // a pre-state check does not depend on its mutation
    // missing_rollback [t]
    ["missing_rollback", ["cleanup"], [], "supported"],
    ["missing_rollback", ["migrate"], [], "contradicted"],
    ["missing_rollback", ["snapshot"], [], "contradicted"], // not a mutate task
    // missing_verification [t]
    ["missing_verification", ["cleanup"], [], "supported"],
    ["missing_verification", ["migrate"], [], "contradicted"],
    ["missing_verification", ["warm"], [], "contradicted"],
    // unestablished_fact [t], [f]
    ["unestablished_fact", ["cleanup"], ["cache_warm"], "supported"],
    ["unestablished_fact", ["migrate"], ["snapshot_taken"], "contradicted"], // established before
    ["unestablished_fact", ["snapshot"], ["window_booked"], "contradicted"], // a goal fact
    ["unestablished_fact", ["cleanup"], ["db.snapshot"], "uncheckable"], // not recorded as needed
    ["unestablished_fact", ["migrate"], ["db.snapshot"], "contradicted"], // a rollback requirement snapshot produces before migrate
    ["unestablished_fact", ["cleanup"], ["window_booked"], "uncheckable"], // a goal fact, but cleanup does not record needing it
    // rollback_requires_destroyed [t], [r]
    ["rollback_requires_destroyed", ["migrate"], ["db.snapshot"], "supported"],
    ["rollback_requires_destroyed", ["migrate"], ["snapshot_taken"], "contradicted"],
    ["rollback_requires_destroyed", ["cleanup"], ["db.snapshot"], "contradicted"], // no rollback at all
    // partial_restore [t]
    ["partial_restore", ["migrate"], [], "supported"],
    ["partial_restore", ["cleanup"], [], "contradicted"],
    // verification_misordered [v, t]
    ["verification_misordered", ["late_check", "migrate"], [], "supported"],
    ["verification_misordered", ["check_pre", "migrate"], [], "contradicted"],
    ["verification_misordered", ["verify_migrate", "migrate"], [], "contradicted"],
    ["verification_misordered", ["snapshot", "migrate"], [], "contradicted"], // does not verify it
    // tool_unavailable [t], [tool]
    ["tool_unavailable", ["migrate"], ["psql"], "contradicted"],
    ["tool_unavailable", ["migrate"], ["kubectl"], "uncheckable"],
    // other and unknown claims
    ["other", [], [], "uncheckable"],
    ["reordering_needed", ["migrate"], [], "uncheckable"],
  ];
  it.each(cases)("%s %j %j → %s", (claim, tasks, facts, expected) => {
    expect(status(claim, tasks, facts)).toBe(expected);
  });

  it("partial_restore is contradicted when the rollback restores everything", () => {
    expect(status("partial_restore", ["migrate"], [], null, SOUND)).toBe("contradicted");
  });

  it("rollback_requires_destroyed is supported when the task destroys its own requirement", () => {
    const selfDestroying = makePlan([mutate("drop", { destroys: ["backup"], rollback: { trigger: "drop", action: "x", requires: ["backup"], restores: [] } })]);
    expect(status("rollback_requires_destroyed", ["drop"], ["backup"], null, selfDestroying)).toBe("supported");
  });

  it("misordered is supported for a prerequisite in the same parallel group", () => {
    const grouped = makePlan([read("a", { parallel_group: "g" }), read("b", { parallel_group: "g" })], [hard("b", "a")]);
    expect(status("misordered", ["a", "b"], [], null, grouped)).toBe("supported");
  });

  it("gives a reason naming what it checked", () => {
    const v = checkEvidence(goal, plan, { task_id: "migrate", evidence: { claim: "misordered", tasks: ["migrate", "snapshot"], facts: [] } });
    expect(v.reason).toContain("snapshot");
  });

  it("says what the rule checked and nothing more: a rollback requirement an earlier task produces but none establishes", () => {
    // db.snapshot is produced by snapshot before migrate: the gate accepts it, so the claim is false.
    const v = checkEvidence(goal, plan, { task_id: "migrate", evidence: { claim: "unestablished_fact", tasks: ["migrate"], facts: ["db.snapshot"] } });
    expect(v).toEqual({
      status: "contradicted",
      reason:
        'the rollback of migrate requires "db.snapshot", which a task produces before migrate runs, or mutates or destroys: rollback_requires_unestablished accepts it',
    });
  });
});

describe("checkEvidence: 'a depends on b' counts a verify task only as an output check of b (docs/design.md §5)", () => {
  // Every check of m is listed before it: right for the pre-state and the constraint check, wrong for the output check.
  const early = makePlan([
    verify("check_pre", "m", "pre_state"),
    verify("check_limit", "m", "constraint"),
    verify("check_out", "m", "mutation_output", ["db.report"]),
    mutate("m", { produces: ["db.report"] }),
  ]);

  it("a pre-state or constraint check runs before its mutation and never depends on it: misordered [check, m] is not supported", () => {
    expect(status("misordered", ["check_pre", "m"], [], null, early)).toBe("uncheckable");
    expect(status("misordered", ["check_limit", "m"], [], null, early)).toBe("uncheckable");
  });

  it("an output check still depends on its mutation: misordered [check_out, m] is supported", () => {
    expect(status("misordered", ["check_out", "m"], [], null, early)).toBe("supported");
  });
});

describe("checkEvidence: unestablished_fact on a rollback requirement is the gate's own predicate (docs/design.md §5)", () => {
  const requiring = (item: string, before: Parameters<typeof makePlan>[0] = [], after: Parameters<typeof makePlan>[0] = []) =>
    makePlan([
      ...before,
      mutate("m", { mutates: ["db"], produces: ["db.report"], rollback: { trigger: "v", action: "restore", requires: [item], restores: ["db"] } }),
      verify("v", "m", "mutation_output", ["db.report"]),
      ...after,
    ]);
  const gateReports = (p: Parameters<typeof checkEvidence>[1], item: string) =>
    runGates(goal, p).some((f) => f.key === `rollback_credibility:rollback_requires_unestablished:m:${item}`);

  it.each([
    ["a goal fact", "window_booked", "contradicted", requiring("window_booked")],
    ["established before m", "snap", "contradicted", requiring("snap", [read("s", { establishes: ["snap"] })])],
    ["produced before m", "db.snapshot", "contradicted", requiring("db.snapshot", [read("s", { produces: ["db.snapshot"] })])],
    ["mutated by a later task", "replica", "contradicted", requiring("replica", [], [mutate("resync", { mutates: ["replica"] })])],
    ["destroyed by a later task", "old-db", "contradicted", requiring("old-db", [], [mutate("drop", { destroys: ["old-db"] })])],
    // The twins that must not change: a requirement nothing provides is still supported.
    ["produced only after m", "replica", "supported", requiring("replica", [], [read("copy", { produces: ["replica"] })])],
    ["provided by nothing", "replica", "supported", requiring("replica")],
  ] as const)("a requirement %s (%s): %s, as the gate says", (_, item, expected, p) => {
    expect(status("unestablished_fact", ["m"], [item], "m", p)).toBe(expected);
    expect(gateReports(p, item)).toBe(expected === "supported");
  });

  it("agrees with rollback_requires_unestablished on every rollback requirement of random plans (a law)", () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(anyPlanOf({ names: ["a", "b", "c", "window_booked"] }), (p) => {
        const keys = new Set(runGates(goal, p).map((f) => f.key));
        for (const t of p.tasks) {
          if (t.kind !== "mutate" || !t.rollback) continue;
          for (const item of t.rollback.requires) {
            if (t.preconditions.some((c) => c.fact === item)) continue; // a precondition is judged as one
            const reported = keys.has(`rollback_credibility:rollback_requires_unestablished:${t.id}:${item}`);
            const got = status("unestablished_fact", [t.id], [item], t.id, p);
            expect(got).toBe(reported ? "supported" : "contradicted");
            seen.add(got);
          }
        }
      }),
      { numRuns: 500 },
    );
    expect([...seen].sort()).toEqual(["contradicted", "supported"]);
  });
});

describe("checkEvidence: what cannot be checked", () => {
  it("a finding without evidence is uncheckable", () => {
    expect(checkEvidence(goal, plan, { task_id: "migrate", evidence: null }).status).toBe("uncheckable");
  });

  it.each([
    ["misordered", ["migrate"], []],
    ["missing_rollback", ["cleanup", "migrate"], []],
    ["unestablished_fact", ["cleanup"], []],
    ["missing_rollback", ["cleanup"], ["extra"]],
  ])("the wrong number of tasks or facts is uncheckable (%s %j %j)", (claim, tasks, facts) => {
    expect(status(claim, tasks, facts)).toBe("uncheckable");
  });
});

describe("checkEvidence: unsupported_reference outranks everything", () => {
  it("a task_id that is not a task of the plan", () => {
    expect(status("missing_rollback", ["cleanup"], [], "ghost")).toBe("unsupported_reference");
  });

  it("an evidence task that is not a task of the plan, even for an otherwise uncheckable claim", () => {
    expect(status("other", ["ghost"], [])).toBe("unsupported_reference");
    expect(status("misordered", ["ghost"], [])).toBe("unsupported_reference");
  });

  it("a missing task_id with no evidence", () => {
    expect(checkEvidence(goal, plan, { task_id: "ghost", evidence: null }).status).toBe("unsupported_reference");
  });

  it("a null task_id is not a reference", () => {
    expect(status("missing_rollback", ["cleanup"], [], null)).toBe("supported");
  });
});
