import { describe, expect, it } from "vitest";
import { checkEvidence } from "../../src/critic/evidence.ts";
import { CLAIM_KINDS, GATE_CODE_NAMES } from "../../src/formats/findings.ts";
import { PlanSchema, type Plan, type Task } from "../../src/formats/plan.ts";
import { runGates } from "../../src/gates/index.ts";
import { makeGoal } from "../helpers/plans.ts";

/**
 * The gates and the evidence table checked against a second, deliberately naive reading of
 * docs/design.md §3–§5 (quadratic scans over list positions, no plan graph), on seeded random plans
 * that are structurally valid. Any divergence prints the plan that shows it.
 */

const goal = makeGoal(["a", "w"], { constraints: { facts: ["a", "w"], tools: ["psql"] } });
const NAMES = ["a", "b", "c", "d"];

/** mulberry32: a small seeded generator, so a failure reproduces. */
function generator(seed: number) {
  let s = seed;
  const next = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const some = (p: number) => NAMES.filter(() => next() < p);
  return { next, pick, some };
}

function randomPlan(r: ReturnType<typeof generator>): Plan {
  const n = 1 + Math.floor(r.next() * 6);
  const ids = Array.from({ length: n }, (_, i) => `t${i}`);
  const groups: (string | null)[] = [];
  for (let i = 0; i < n; i++) groups.push(i > 0 && groups[i - 1] && r.next() < 0.6 ? groups[i - 1]! : r.next() < 0.35 ? `g${i}` : null);
  const kinds = ids.map(() => r.pick(["mutate", "verify", "read", "notify"] as const));
  const mutating = ids.filter((_, i) => kinds[i] === "mutate");
  const tasks = ids.map((id, i) => {
    const kind = kinds[i] === "verify" && mutating.length === 0 ? "read" : kinds[i]!;
    return {
      id,
      description: "d",
      kind,
      risk: r.pick(["low", "medium", "high"]),
      blast_radius: r.pick(["low", "medium", "critical"]),
      reversibility: r.next() < 0.2 ? "irreversible" : "reversible",
      parallel_group: groups[i],
      preconditions: r.some(0.25).map((fact) => ({ fact, established_by: r.next() < 0.4 ? r.pick([...ids, "env"]) : null })),
      establishes: r.some(0.3),
      produces: r.some(0.3),
      mutates: r.some(0.3),
      destroys: r.some(0.4),
      verifies: kind === "verify" ? { task: r.pick(mutating), subject: r.pick(["pre_state", "constraint", "mutation_output"]), reads: r.some(0.3) } : null,
      rollback: kind === "mutate" && r.next() < 0.6 ? { trigger: r.pick(ids), action: "x", requires: r.some(0.5), restores: r.some(0.6) } : null,
    };
  });
  const dependencies = Array.from({ length: Math.floor(r.next() * 6) }, () => ({
    from: r.pick(ids),
    to: r.pick(ids),
    kind: r.next() < 0.8 ? "hard" : "soft",
  })).filter((d) => d.from !== d.to);
  return PlanSchema.parse({ id: "p", goal_id: goal.id, tasks, dependencies });
}

/** The naive reading: positions, list scans, nothing shared with src/graph. */
function naive(plan: Plan) {
  const T = plan.tasks;
  const at = (id: string) => T.findIndex((t) => t.id === id);
  const runsBefore = (i: number, j: number) => i < j && !(T[i]!.parallel_group !== undefined && T[i]!.parallel_group === T[j]!.parallel_group);
  const level = (l: string) => l === "high" || l === "critical";
  const highBlast = (t: Task) => level(t.risk) || level(t.blast_radius) || t.reversibility === "irreversible";
  const hard = plan.dependencies.filter((d) => d.kind === "hard").map((d) => [at(d.from), at(d.to)] as const);
  const reaches = (from: number, to: number) => {
    const seen = new Set<number>();
    const todo = [from];
    for (let v = todo.pop(); v !== undefined; v = todo.pop())
      for (const [a, b] of hard)
        if (a === v && !seen.has(b)) {
          seen.add(b);
          todo.push(b);
        }
    return seen.has(to);
  };
  const establishedBefore = (fact: string, i: number) => T.some((u, j) => runsBefore(j, i) && u.establishes.includes(fact));
  return { T, at, runsBefore, highBlast, hard, reaches, establishedBefore };
}

function naiveGateKeys(plan: Plan): string[] {
  const { T, at, runsBefore, highBlast, hard, reaches, establishedBefore } = naive(plan);
  const facts = goal.constraints.facts;
  const out = new Set<string>();
  const inCycle = new Set<number>();
  T.forEach((_t, i) => {
    if (inCycle.has(i)) return;
    const component = T.map((_u, j) => j).filter((j) => (j === i ? reaches(i, i) : reaches(i, j) && reaches(j, i)));
    if (component.length < 2) return;
    component.forEach((j) => inCycle.add(j));
    out.add(`no_dep_cycles:dependency_cycle:${T[i]!.id}:${component.map((j) => T[j]!.id).join(",")}`);
  });
  for (const [a, b] of hard) if (!runsBefore(a, b)) out.add(`ordering_sane:order_violates_dependency:${T[b]!.id}:${T[a]!.id}->${T[b]!.id}`);
  T.forEach((t, i) => {
    for (const { fact, established_by: by } of t.preconditions) {
      const wrong = by === "env" ? !facts.includes(fact) : by !== undefined && !(T[at(by)]!.establishes.includes(fact) && runsBefore(at(by), i));
      if (wrong) out.add(`preconditions_closed:precondition_wrong_establisher:${t.id}:${fact}`);
      if (by === undefined && !facts.includes(fact) && !establishedBefore(fact, i)) out.add(`preconditions_closed:precondition_unestablished:${t.id}:${fact}`);
    }
    if (t.kind === "mutate") {
      const checks = T.filter((v) => v.kind === "verify" && v.verifies!.task === t.id).map((v) => v.verifies!.subject);
      if (highBlast(t) && !checks.includes("mutation_output")) out.add(`verification_present:verification_missing:${t.id}:mutation_output`);
      if (t.reversibility === "irreversible" && !checks.some((s) => s !== "mutation_output"))
        out.add(`verification_present:no_return_check_missing:${t.id}:pre_state`);
      if (t.reversibility === "reversible" && highBlast(t) && !t.rollback) out.add(`rollback_present:rollback_missing:${t.id}:rollback`);
    }
    if (t.kind === "verify") {
      const m = at(t.verifies!.task);
      const target = T[m]!;
      if (t.verifies!.subject !== "mutation_output") {
        if (!runsBefore(i, m)) out.add(`verification_order:verification_reads_stale_state:${t.id}:${target.id}`);
      } else {
        if (!runsBefore(m, i)) out.add(`verification_order:verification_precedes_mutation:${t.id}:${target.id}`);
        if (!t.verifies!.reads.some((x) => target.produces.includes(x))) out.add(`verification_order:verification_ignores_output:${t.id}:${target.id}`);
      }
    }
    const rb = t.rollback;
    if (t.kind === "mutate" && rb) {
      const k = at(rb.trigger);
      const v = T[k]!;
      if (!(v.kind === "verify" && v.verifies!.task === t.id && v.verifies!.subject === "mutation_output" && runsBefore(i, k)))
        out.add(`rollback_credibility:rollback_unreachable:${t.id}:${rb.trigger}`);
      for (const item of rb.requires) {
        if (t.destroys.includes(item)) out.add(`rollback_credibility:rollback_self_dependent:${t.id}:${item}`);
        if (T.some((u, j) => runsBefore(i, j) && runsBefore(j, k) && u.destroys.includes(item)))
          out.add(`rollback_credibility:rollback_post_consumed:${t.id}:${item}`);
        const provided =
          facts.includes(item) ||
          T.some((u, j) => runsBefore(j, i) && (u.establishes.includes(item) || u.produces.includes(item))) ||
          T.some((u) => u.mutates.includes(item) || u.destroys.includes(item));
        if (!provided) out.add(`rollback_credibility:rollback_requires_unestablished:${t.id}:${item}`);
      }
      for (const item of t.mutates) if (!rb.restores.includes(item)) out.add(`rollback_credibility:rollback_inconsistent_state:${t.id}:${item}`);
    }
  });
  T.forEach((b, j) =>
    T.slice(0, j).forEach((a) => {
      if (a.parallel_group === undefined || a.parallel_group !== b.parallel_group) return;
      if (highBlast(a) && highBlast(b)) out.add(`parallel_safety:parallel_high_blast:${b.id}:${a.id}`);
      const touched = [...a.mutates, ...a.destroys];
      if ([...b.mutates, ...b.destroys].some((x) => touched.includes(x))) out.add(`parallel_safety:parallel_shared_resource:${b.id}:${a.id}`);
    }),
  );
  return [...out].sort();
}

type Evidence = { claim: string; tasks: string[]; facts: string[] } | null;

function naiveEvidence(plan: Plan, taskId: string | null, e: Evidence): string {
  const { T, at, runsBefore, establishedBefore } = naive(plan);
  if ([...(taskId === null ? [] : [taskId]), ...(e?.tasks ?? [])].some((id) => at(id) === -1)) return "unsupported_reference";
  if (!e) return "uncheckable";
  const arity: Record<string, [number, number]> = {
    misordered: [2, 0],
    missing_rollback: [1, 0],
    missing_verification: [1, 0],
    unestablished_fact: [1, 1],
    rollback_requires_destroyed: [1, 1],
    partial_restore: [1, 0],
    verification_misordered: [2, 0],
    tool_unavailable: [1, 1],
  };
  const want = arity[e.claim];
  if (!want || e.tasks.length !== want[0] || e.facts.length !== want[1]) return "uncheckable";
  const [x, y] = e.tasks.map(at) as [number, number];
  const t = T[x]!;
  const f = e.facts[0]!;
  const yes = (c: boolean) => (c ? "supported" : "contradicted");
  switch (e.claim) {
    case "misordered": {
      const dependsOn =
        plan.dependencies.some((d) => d.kind === "hard" && at(d.from) === y && at(d.to) === x) ||
        t.preconditions.some((p) => T[y]!.establishes.includes(p.fact)) ||
        (t.kind === "verify" && at(t.verifies!.task) === y && t.verifies!.subject === "mutation_output");
      return dependsOn && !runsBefore(y, x) ? "supported" : runsBefore(y, x) ? "contradicted" : "uncheckable";
    }
    case "missing_rollback":
      return yes(t.kind === "mutate" && !t.rollback);
    case "missing_verification":
      return yes(t.kind === "mutate" && !T.some((v) => v.kind === "verify" && v.verifies!.task === t.id && v.verifies!.subject === "mutation_output"));
    case "unestablished_fact": {
      const precondition = t.preconditions.some((p) => p.fact === f);
      const requirement = (t.rollback?.requires ?? []).includes(f);
      if (!precondition && !requirement) return "uncheckable";
      const openPrecondition = precondition && !goal.constraints.facts.includes(f) && !establishedBefore(f, x);
      const openRequirement = requirement && naiveGateKeys(plan).includes(`rollback_credibility:rollback_requires_unestablished:${t.id}:${f}`);
      return yes(openPrecondition || openRequirement);
    }
    case "rollback_requires_destroyed": {
      const k = t.rollback ? at(t.rollback.trigger) : -1;
      const destroyed = t.destroys.includes(f) || (k !== -1 && T.some((u, j) => runsBefore(x, j) && runsBefore(j, k) && u.destroys.includes(f)));
      return yes(!!t.rollback?.requires.includes(f) && destroyed);
    }
    case "partial_restore":
      return yes(!!t.rollback && t.mutates.some((m) => !t.rollback!.restores.includes(m)));
    case "verification_misordered":
      return yes(
        t.kind === "verify" && at(t.verifies!.task) === y && naiveGateKeys(plan).some((k) => k.startsWith(`verification_order:`) && k.split(":")[2] === t.id),
      );
    default:
      return goal.constraints.tools.includes(f) ? "contradicted" : "uncheckable";
  }
}

/** Visit `count` random plans from a seed; returns the union of what each visit reports seeing. */
function samplePlans(seed: number, count: number, visit: (plan: Plan, r: ReturnType<typeof generator>) => string[]): Set<string> {
  const r = generator(seed);
  const seen = new Set<string>();
  for (let k = 0; k < count; k++) for (const s of visit(randomPlan(r), r)) seen.add(s);
  return seen;
}

describe("gates against a naive reading of docs/design.md §4", () => {
  it("return exactly the keys the naive reading derives, on 2000 random structurally valid plans", () => {
    const seen = samplePlans(20261202, 2000, (plan) => {
      const findings = runGates(goal, plan);
      expect(
        findings.filter((f) => f.gate === "schema_valid"),
        JSON.stringify(plan),
      ).toEqual([]);
      expect(findings.map((f) => f.key).sort(), JSON.stringify(plan)).toEqual(naiveGateKeys(plan));
      return findings.map((f) => f.code);
    });
    // The sample reaches every code but schema_invalid, so no gate passes by being silent.
    expect([...seen].sort()).toEqual(GATE_CODE_NAMES.filter((c) => c !== "schema_invalid").sort());
  });
});

describe("checkEvidence against a naive reading of the docs/design.md §5 table", () => {
  it("gives the naive status for random claims, references and arities, on 6000 random plans", () => {
    const seen = samplePlans(5, 6000, (plan, r) => {
      const ids = plan.tasks.map((t) => t.id);
      const ref = () => (r.next() < 0.03 ? "nope" : r.pick(ids));
      const taskId = r.next() < 0.3 ? null : ref();
      // Half of the two-task claims name a verify task and its target, so verification_misordered gets its chance.
      const check = plan.tasks.find((t) => t.verifies);
      const tasks = Array.from({ length: r.pick([0, 1, 1, 2, 2, 3]) }, ref);
      if (check && tasks.length === 2 && r.next() < 0.5) tasks.splice(0, 2, check.id, check.verifies!.task);
      const facts = Array.from({ length: r.pick([0, 1, 1, 2]) }, () => r.pick([...NAMES, "psql", "w"]));
      const evidence: Evidence = r.next() < 0.05 ? null : { claim: r.pick(CLAIM_KINDS), tasks, facts };
      const want = naiveEvidence(plan, taskId, evidence);
      expect(checkEvidence(goal, plan, { task_id: taskId, evidence }).status, JSON.stringify({ plan, taskId, evidence })).toBe(want);
      return [`${evidence?.claim}:${want}`];
    });
    // The sample reaches every row of the table: each claim is seen supported where it can be.
    for (const claim of [
      "misordered",
      "missing_rollback",
      "missing_verification",
      "unestablished_fact",
      "rollback_requires_destroyed",
      "partial_restore",
      "verification_misordered",
    ])
      expect(seen).toContain(`${claim}:supported`);
  });
});
