import { describe, expect, it } from "vitest";
import { checkEvidence } from "../../src/critic/evidence.ts";
import { normalizeCriticResponse, normalizeFinding, unavailableAudit } from "../../src/critic/normalize.ts";
import type { NormalizedFinding } from "../../src/formats/findings.ts";
import { runGates } from "../../src/gates/index.ts";
import { carryForward } from "../../src/loop/carry-forward.ts";
import { judgeRound } from "../../src/loop/decide.ts";
import { structuralHash } from "../../src/loop/structural.ts";
import { codesOf, hard, makeGoal, makePlan, mutate, read, verify } from "../helpers/plans.ts";

/** docs/design.md clauses the review re-read line by line, pinned where the existing suites left them implicit. */

const goal = makeGoal(["window"]);
const change = (over: Parameters<typeof mutate>[1] = {}) =>
  mutate("m", {
    risk: "high",
    mutates: ["db"],
    produces: ["db.report"],
    rollback: { trigger: "v", action: "restore", requires: ["snap"], restores: ["db"] },
    ...over,
  });
const check = (over: Parameters<typeof verify>[4] = {}) => verify("v", "m", "mutation_output", ["db.report"], over);
const snapshot = (over: Parameters<typeof read>[1] = {}) => read("s", { establishes: ["snap"], ...over });

describe("§3 'runs before' excludes a shared parallel group, in every gate that asks it", () => {
  it("preconditions_closed: a named establisher in the needing task's group does not run before it", () => {
    const plan = makePlan([
      read("e", { establishes: ["f"], parallel_group: "g" }),
      read("n", { parallel_group: "g", preconditions: [{ fact: "f", established_by: "e" }] }),
    ]);
    expect(codesOf(runGates(goal, plan))).toEqual(["precondition_wrong_establisher"]);
  });

  it("rollback_credibility: a requirement only established in the task's own group is not there when it starts", () => {
    const grouped = makePlan([snapshot({ parallel_group: "g" }), change({ parallel_group: "g" }), check()]);
    expect(codesOf(runGates(goal, grouped))).toEqual(["rollback_requires_unestablished"]);
    expect(runGates(goal, makePlan([snapshot(), change(), check()]))).toEqual([]);
  });

  it("rollback_credibility: a trigger in the task's own group is unreachable", () => {
    const plan = makePlan([snapshot(), change({ parallel_group: "g" }), check({ parallel_group: "g" })]);
    expect(codesOf(runGates(goal, plan))).toEqual(["verification_precedes_mutation", "rollback_unreachable"]);
  });

  it("rollback_post_consumed: a destroyer concurrent with the trigger does not run before it", () => {
    const cleanup = (over = {}) => mutate("c", { destroys: ["snap"], ...over });
    expect(codesOf(runGates(goal, makePlan([snapshot(), change(), cleanup(), check()])))).toEqual(["rollback_post_consumed"]);
    expect(runGates(goal, makePlan([snapshot(), change(), cleanup({ parallel_group: "g" }), check({ parallel_group: "g" })]))).toEqual([]);
  });

  it("evidence: unestablished_fact is supported when the only establisher shares the task's group", () => {
    const plan = makePlan([read("e", { establishes: ["f"], parallel_group: "g" }), read("n", { parallel_group: "g", preconditions: [{ fact: "f" }] })]);
    expect(checkEvidence(goal, plan, { task_id: "n", evidence: { claim: "unestablished_fact", tasks: ["n"], facts: ["f"] } }).status).toBe("supported");
  });
});

describe("§4 rollback_requires_unestablished: 'named in the mutates or destroys of any task of the plan'", () => {
  it("a requirement that a later task destroys, or that another task mutates, exists; one nothing names does not", () => {
    const requiring = (item: string) => change({ rollback: { trigger: "v", action: "restore", requires: [item], restores: ["db"] } });
    expect(runGates(goal, makePlan([requiring("old-db"), check(), mutate("drop", { destroys: ["old-db"] })]))).toEqual([]);
    expect(runGates(goal, makePlan([requiring("replica"), check(), mutate("resync", { mutates: ["replica"] })]))).toEqual([]);
    expect(codesOf(runGates(goal, makePlan([requiring("replica"), check(), read("look", { produces: ["replica"] })])))).toEqual([
      "rollback_requires_unestablished",
    ]);
  });
});

describe("§6 carry-forward, at the level of one round", () => {
  const plan = makePlan([snapshot(), change(), check(), mutate("cache", { mutates: ["cache"] })]);
  const finding = (evidence: { claim: string; tasks: string[]; facts: string[] }, family = "weak_rollback") =>
    normalizeFinding(goal, plan, {
      family,
      severity: "blocker",
      task_id: evidence.tasks[0] ?? null,
      message: "x",
      suggested_fix: "",
      evidence,
    }) as NormalizedFinding;
  const supported = finding({ claim: "missing_rollback", tasks: ["cache"], facts: [] });
  const uncheckable = finding({ claim: "other", tasks: [], facts: [] }, "feasibility");
  const cleanAudit = normalizeCriticResponse(goal, plan, '{"findings": []}');

  it("a supported blocker stays through an audit that does not repeat it; its re-check decides, not the critic", () => {
    expect([supported.evidence_status, uncheckable.evidence_status]).toEqual(["supported", "uncheckable"]);
    expect(carryForward(goal, plan, [supported], cleanAudit, "strict").carried.map((f) => f.key)).toEqual([supported.key]);
    expect(carryForward(goal, plan, [supported], cleanAudit, "balanced").carried.map((f) => f.key)).toEqual([supported.key]);
    const fixed = makePlan([
      snapshot(),
      change(),
      check(),
      mutate("cache", { mutates: ["cache"], rollback: { trigger: "v", action: "x", requires: [], restores: ["cache"] } }),
    ]);
    expect(carryForward(goal, fixed, [supported], null, "strict").carried).toEqual([]);
  });

  it("an uncheckable blocker is cleared by an audit that does not repeat it, and by nothing else", () => {
    expect(carryForward(goal, plan, [uncheckable], cleanAudit, "strict").carried).toEqual([]);
    expect(carryForward(goal, plan, [uncheckable], null, "strict").carried.map((f) => f.key)).toEqual([uncheckable.key]);
    // an unavailable critic is no audit: it cannot clear anything
    expect(carryForward(goal, plan, [uncheckable], unavailableAudit("invalid_output", "oops"), "strict").carried.map((f) => f.key)).toEqual([uncheckable.key]);
    // under balanced an uncheckable blocker never blocks, so it is never carried
    expect(carryForward(goal, plan, [uncheckable], null, "balanced").carried).toEqual([]);
  });
});

describe("§6 structural content", () => {
  it("prose inside preconditions, verifies and rollbacks is not there to change it; a fact name is", () => {
    const base = makePlan([snapshot(), change(), check()], [hard("s", "m")]);
    const reworded = makePlan(
      [
        snapshot({ description: "other words" }),
        change({ rollback: { trigger: "v", action: "other action", requires: ["snap"], restores: ["db"] } }),
        check({ description: "x" }),
      ],
      [hard("s", "m")],
    );
    expect(structuralHash(reworded)).toBe(structuralHash(base));
    expect(structuralHash(makePlan([snapshot({ establishes: ["snap2"] }), change(), check()], [hard("s", "m")]))).not.toBe(structuralHash(base));
  });
});

describe("predecessor §9.1.11: gate and critic findings neither collide nor repeat", () => {
  it("a gate finding and a critic finding on the same task and defect keep distinct keys, each counted once", () => {
    const plan = makePlan([snapshot(), change({ rollback: null }), check()]);
    const gate = runGates(goal, plan);
    expect(gate.map((f) => f.key)).toEqual(["rollback_present:rollback_missing:m:rollback"]);
    const raw = {
      family: "weak_rollback",
      severity: "blocker",
      task_id: "m",
      message: "no rollback",
      suggested_fix: "",
      evidence: { claim: "missing_rollback", tasks: ["m"], facts: [] },
    };
    const audit = normalizeCriticResponse(goal, plan, JSON.stringify({ findings: [raw, raw] }));
    const round = judgeRound({ tolerance: "strict", gateFindings: gate, audit, carried: [] });
    expect(round.blockerKeys).toEqual(["rollback_present:rollback_missing:m:rollback", "critic:weak_rollback:m:missing_rollback:m:"]);
  });
});
