import { describe, expect, it } from "vitest";
import { GATE_CODES, GATE_IDS, isGateCode } from "../../src/formats/findings.ts";
import { GATE_VERSIONS, runGates } from "../../src/gates/index.ts";
import { codesOf, hard, makeGoal, makePlan, mutate, notify, read, soft, verify } from "../helpers/plans.ts";

const goal = makeGoal(["window_booked"]);
const gate = (plan: ReturnType<typeof makePlan>, g = goal) => runGates(g, plan);

/** A high-risk change with a credible rollback and an output check: passes every gate. */
const change = (extra: Parameters<typeof mutate>[1] = {}) =>
  mutate("migrate", {
    risk: "high",
    mutates: ["db"],
    produces: ["db.report"],
    rollback: { trigger: "check_report", action: "restore", requires: ["snapshot_taken"], restores: ["db"] },
    ...extra,
  });
const snapshot = read("snapshot", { establishes: ["snapshot_taken"] });
const checkReport = verify("check_report", "migrate", "mutation_output", ["db.report"]);

describe("findings", () => {
  it("carry origin, gate, family and a gate:code:task_id:detail key", () => {
    const [f] = gate(makePlan([read("a"), read("b")], [hard("b", "a")]));
    expect(f).toEqual({
      origin: "gate",
      gate: "ordering_sane",
      code: "order_violates_dependency",
      family: "unsafe_sequencing",
      severity: "blocker",
      task_id: "a",
      message: expect.stringContaining("a has a hard dependency on b"),
      key: "ordering_sane:order_violates_dependency:a:b->a",
    });
  });

  it("every code's gate and family come from the GATE_CODES table", () => {
    const plan = makePlan([
      mutate("m", { risk: "critical", reversibility: "irreversible", parallel_group: "g" }),
      notify("n", { risk: "high", parallel_group: "g" }),
    ]);
    const findings = gate(plan);
    expect(findings.length).toBeGreaterThan(2);
    for (const f of findings) {
      if (!isGateCode(f.code)) throw new Error(`${f.code} is not a built-in code`);
      expect([f.gate, f.family]).toEqual([GATE_CODES[f.code].gate, GATE_CODES[f.code].family]);
    }
  });

  it("keys are unique even when duplicated task ids would collide", () => {
    const plan = makePlan([mutate("a", { risk: "high" }), mutate("a", { risk: "high" })]);
    const keys = gate(plan).map((f) => f.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain("rollback_present:rollback_missing:a:rollback");
  });

  it("skip leaves a gate out", () => {
    const plan = makePlan([read("a"), read("b")], [hard("b", "a")]);
    expect(runGates(goal, plan, { skip: ["ordering_sane"] })).toEqual([]);
  });

  it("every gate has a version string", () => {
    expect(Object.keys(GATE_VERSIONS).sort()).toEqual([...GATE_IDS].sort());
    expect(GATE_VERSIONS.schema_valid).toBe("schema_valid@1");
  });
});

describe("a sound plan", () => {
  it("passes every gate", () => {
    const plan = makePlan([snapshot, change(), checkReport], [hard("snapshot", "migrate"), hard("migrate", "check_report")]);
    expect(gate(plan)).toEqual([]);
  });
});

describe("schema_valid", () => {
  it("fires on a structural violation with its key path, and not on the fixed twin", () => {
    const bad = gate(makePlan([read("a"), read("b")], [hard("a", "zz")]));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ code: "schema_invalid", task_id: null, message: 'dependency a->zz.to: "zz" names no task of the plan' });
    expect(gate(makePlan([read("a"), read("b")], [hard("a", "b")]))).toEqual([]);
  });

  it("fires when the plan's goal_id is not the goal's id", () => {
    expect(codesOf(gate(makePlan([read("a")], [], { goal_id: "other" })))).toEqual(["schema_invalid"]);
  });
});

describe("no_dep_cycles", () => {
  it("names exactly the tasks of each hard cycle, on its first task", () => {
    const plan = makePlan([read("x"), read("a"), read("b"), read("c")], [hard("a", "b"), hard("b", "c"), hard("c", "a"), hard("x", "a")]);
    const cycles = gate(plan).filter((f) => f.code === "dependency_cycle");
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toMatchObject({ task_id: "a", key: "no_dep_cycles:dependency_cycle:a:a,b,c" });
  });

  it("is silent when the back edge is soft", () => {
    const plan = makePlan([read("a"), read("b"), read("c")], [hard("a", "b"), hard("b", "c"), soft("c", "a")]);
    expect(gate(plan)).toEqual([]);
  });
});

describe("ordering_sane", () => {
  it("fires per violating edge, on the edge's to, including inside a parallel group", () => {
    const plan = makePlan([read("a", { parallel_group: "g" }), read("b", { parallel_group: "g" }), read("c")], [hard("a", "b"), hard("c", "a")]);
    expect(gate(plan).map((f) => f.key)).toEqual(["ordering_sane:order_violates_dependency:a:c->a", "ordering_sane:order_violates_dependency:b:a->b"]);
  });

  it("is silent on soft edges and on edges between consecutive groups", () => {
    const plan = makePlan([read("a", { parallel_group: "g1" }), read("b", { parallel_group: "g2" })], [hard("a", "b"), soft("b", "a")]);
    expect(gate(plan)).toEqual([]);
  });
});

describe("preconditions_closed", () => {
  const needs = (fact: string, by?: string) => mutate("work", { preconditions: [{ fact, established_by: by }] });
  const prep = read("prep", { establishes: ["ready"] });
  const unestablished = (plan: ReturnType<typeof makePlan>) => gate(plan).filter((f) => f.code === "precondition_unestablished");
  const wrong = (plan: ReturnType<typeof makePlan>) => gate(plan).filter((f) => f.code === "precondition_wrong_establisher");

  it("precondition pair: established before passes; established later or concurrently fires", () => {
    expect(gate(makePlan([prep, needs("ready")]))).toEqual([]);
    expect(unestablished(makePlan([needs("ready"), prep]))).toMatchObject([
      { task_id: "work", key: "preconditions_closed:precondition_unestablished:work:ready" },
    ]);
    const concurrent = makePlan([
      { ...prep, parallel_group: "g" },
      { ...needs("ready"), parallel_group: "g" },
    ]);
    expect(codesOf(gate(concurrent))).toEqual(["precondition_unestablished"]);
  });

  it("a goal fact closes an unnamed precondition", () => {
    expect(gate(makePlan([needs("window_booked")]))).toEqual([]);
    expect(codesOf(gate(makePlan([needs("window_booked")]), makeGoal([])))).toEqual(["precondition_unestablished"]);
  });

  it("a named establisher is judged by that name alone", () => {
    expect(gate(makePlan([prep, needs("ready", "prep")]))).toEqual([]);
    // prep establishes the fact, but the named task does not
    expect(wrong(makePlan([prep, notify("tell"), needs("ready", "tell")]))).toHaveLength(1);
    // the named task establishes it, but runs after
    expect(wrong(makePlan([needs("ready", "prep"), prep]))).toMatchObject([{ message: expect.stringContaining("does not run before") }]);
    expect(unestablished(makePlan([needs("ready", "prep"), prep]))).toEqual([]);
  });

  it("env must be backed by constraints.facts", () => {
    expect(gate(makePlan([needs("window_booked", "env")]))).toEqual([]);
    expect(codesOf(gate(makePlan([needs("change_frozen", "env")])))).toEqual(["precondition_wrong_establisher"]);
  });
});

describe("verification_present", () => {
  const drop = mutate("drop", { reversibility: "irreversible", produces: ["drop.log"] });
  const pre = verify("pre", "drop", "pre_state");
  const post = verify("post", "drop", "mutation_output", ["drop.log"]);

  it("verification_missing: a high-blast mutation without an output check", () => {
    expect(codesOf(gate(makePlan([pre, drop])))).toEqual(["verification_missing"]);
    expect(gate(makePlan([pre, drop, post]))).toEqual([]);
  });

  it("no_return_check_missing: an irreversible mutation without a pre_state or constraint check", () => {
    expect(codesOf(gate(makePlan([drop, post])))).toEqual(["no_return_check_missing"]);
    expect(gate(makePlan([verify("policy", "drop", "constraint"), drop, post]))).toEqual([]);
  });

  it("is existence only: a misplaced check still counts as present", () => {
    expect(codesOf(gate(makePlan([drop, pre, post])))).toEqual(["verification_reads_stale_state"]);
  });

  it("ignores mutations that are not high-blast", () => {
    expect(gate(makePlan([mutate("resize", { mutates: ["pool"] })]))).toEqual([]);
  });
});

describe("verification_order (the verification triplet)", () => {
  const m = mutate("migrate", { produces: ["db.report"] });
  const pre = verify("pre", "migrate", "pre_state");
  const out = (reads = ["db.report"]) => verify("out", "migrate", "mutation_output", reads);

  it("a pre-state check before the mutation passes; after it fails", () => {
    expect(gate(makePlan([pre, m]))).toEqual([]);
    expect(gate(makePlan([m, pre]))).toMatchObject([{ code: "verification_reads_stale_state", task_id: "pre" }]);
  });

  it("a constraint check is keyed like a pre-state check", () => {
    expect(codesOf(gate(makePlan([m, verify("c", "migrate", "constraint")])))).toEqual(["verification_reads_stale_state"]);
  });

  it("an output check after the mutation that reads its output passes", () => {
    expect(gate(makePlan([m, out()]))).toEqual([]);
  });

  it("an output check before the mutation fires verification_precedes_mutation", () => {
    expect(codesOf(gate(makePlan([out(), m])))).toEqual(["verification_precedes_mutation"]);
    expect(
      codesOf(
        gate(
          makePlan([
            { ...out(), parallel_group: "g" },
            { ...m, parallel_group: "g" },
          ]),
        ),
      ),
    ).toEqual(["verification_precedes_mutation"]);
  });

  it("an output check that reads nothing the mutation produces fires verification_ignores_output", () => {
    expect(codesOf(gate(makePlan([m, out(["db.size"])])))).toEqual(["verification_ignores_output"]);
    expect(codesOf(gate(makePlan([mutate("migrate"), out()])))).toEqual(["verification_ignores_output"]);
  });
});

describe("rollback_present", () => {
  it("fires on a high-blast reversible mutation without rollback, not on its twins", () => {
    const withCheck = (t: ReturnType<typeof mutate>) => makePlan([t, verify("post", "m", "mutation_output", ["out"])]);
    expect(codesOf(gate(withCheck(mutate("m", { blast_radius: "critical", produces: ["out"] }))))).toEqual(["rollback_missing"]);
    expect(gate(withCheck(mutate("m", { produces: ["out"] })))).toEqual([]);
    const irreversible = makePlan([
      verify("pre", "m", "pre_state"),
      mutate("m", { reversibility: "irreversible", produces: ["out"] }),
      verify("post", "m", "mutation_output", ["out"]),
    ]);
    expect(gate(irreversible)).toEqual([]);
  });
});

describe("rollback_credibility (the rollback twins)", () => {
  const plan = (migrate = change(), tasks = [snapshot, migrate, checkReport]) =>
    makePlan(tasks, [hard("snapshot", "migrate"), hard("migrate", "check_report")]);
  const rollback = (over: object) => ({ trigger: "check_report", action: "restore", requires: ["snapshot_taken"], restores: ["db"], ...over });

  it("credible vs unreachable", () => {
    expect(gate(plan())).toEqual([]);
    expect(codesOf(gate(plan(change({ rollback: rollback({ trigger: "snapshot" }) }))))).toEqual(["rollback_unreachable"]);
    // a pre-state check of this task is no trigger for its rollback
    const pre = verify("pre", "migrate", "pre_state");
    expect(
      codesOf(gate(plan(change({ rollback: rollback({ trigger: "pre" }) }), [pre, snapshot, change({ rollback: rollback({ trigger: "pre" }) }), checkReport]))),
    ).toEqual(["rollback_unreachable"]);
  });

  it("self-dependent: the task destroys what its rollback requires", () => {
    expect(gate(plan(change({ destroys: ["snapshot_taken"] })))).toMatchObject([
      { code: "rollback_self_dependent", task_id: "migrate", key: "rollback_credibility:rollback_self_dependent:migrate:snapshot_taken" },
    ]);
  });

  it("post-consumed: destroyed between the task and its trigger, not after the trigger", () => {
    const cleanup = mutate("cleanup", { destroys: ["snapshot_taken"] });
    expect(codesOf(gate(plan(change(), [snapshot, change(), cleanup, checkReport])))).toEqual(["rollback_post_consumed"]);
    expect(gate(plan(change(), [snapshot, change(), checkReport, cleanup]))).toEqual([]);
  });

  it("inconsistent state: something mutated is not restored", () => {
    expect(gate(plan(change({ mutates: ["db", "cache"] })))).toMatchObject([
      { code: "rollback_inconsistent_state", key: "rollback_credibility:rollback_inconsistent_state:migrate:cache" },
    ]);
  });

  it("requires-unestablished: nothing provides the requirement; a goal fact, an earlier product or a touched resource does", () => {
    expect(codesOf(gate(plan(change({ rollback: rollback({ requires: ["backup"] }) }))))).toEqual(["rollback_requires_unestablished"]);
    expect(gate(plan(change({ rollback: rollback({ requires: ["window_booked"] }) })))).toEqual([]);
    expect(gate(plan(change({ rollback: rollback({ requires: ["db"] }) })))).toEqual([]);
    const produced = read("snapshot", { produces: ["db.snapshot"] });
    expect(
      gate(
        plan(change({ rollback: rollback({ requires: ["db.snapshot"] }) }), [
          produced,
          change({ rollback: rollback({ requires: ["db.snapshot"] }) }),
          checkReport,
        ]),
      ),
    ).toEqual([]);
    // established only after the task: not there when the task starts
    expect(codesOf(gate(makePlan([change(), checkReport, snapshot], [hard("migrate", "check_report")])))).toEqual(["rollback_requires_unestablished"]);
  });
});

describe("parallel_safety", () => {
  it("parallel_high_blast per pair, on the later task", () => {
    const plan = makePlan(["a", "b", "c"].map((id) => notify(id, { risk: "high", parallel_group: "g" })));
    expect(gate(plan).map((f) => f.key)).toEqual([
      "parallel_safety:parallel_high_blast:b:a",
      "parallel_safety:parallel_high_blast:c:a",
      "parallel_safety:parallel_high_blast:c:b",
    ]);
    expect(gate(makePlan([notify("a", { risk: "high", parallel_group: "g" }), notify("b", { parallel_group: "g" })]))).toEqual([]);
  });

  it("parallel_shared_resource when mutates plus destroys meet, once per pair", () => {
    const plan = makePlan([
      mutate("a", { mutates: ["pool", "dns"], parallel_group: "g" }),
      mutate("b", { mutates: ["dns"], destroys: ["pool"], parallel_group: "g" }),
    ]);
    const findings = gate(plan);
    expect(findings).toMatchObject([{ code: "parallel_shared_resource", task_id: "b", message: expect.stringContaining('"dns", "pool"') }]);
    expect(gate(makePlan([mutate("a", { mutates: ["pool"], parallel_group: "g" }), mutate("b", { mutates: ["pool2"], parallel_group: "g" })]))).toEqual([]);
    expect(gate(makePlan([mutate("a", { mutates: ["pool"], parallel_group: "g1" }), mutate("b", { mutates: ["pool"], parallel_group: "g2" })]))).toEqual([]);
    // a task that both mutates and destroys a name does not pair with itself
    expect(
      gate(makePlan([mutate("a", { mutates: ["pool"], destroys: ["pool"], parallel_group: "g" }), mutate("b", { mutates: ["other"], parallel_group: "g" })])),
    ).toEqual([]);
    const three = makePlan(["a", "b", "c"].map((id) => mutate(id, { mutates: ["pool"], parallel_group: "g" })));
    expect(gate(three).map((f) => f.key)).toEqual([
      "parallel_safety:parallel_shared_resource:b:a",
      "parallel_safety:parallel_shared_resource:c:a",
      "parallel_safety:parallel_shared_resource:c:b",
    ]);
  });
});
