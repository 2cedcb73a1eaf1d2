import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, hashCanonical } from "../../src/canonical.ts";
import { CriticOutputSchema, type CriticOutput } from "../../src/formats/findings.ts";
import { FixtureSchema } from "../../src/formats/fixture.ts";
import type { Goal } from "../../src/formats/goal.ts";
import { PlanSchema, type Plan } from "../../src/formats/plan.ts";
import { runGates } from "../../src/gates/index.ts";
import { createModelClient } from "../../src/providers/client.ts";
import { createSimAdapter } from "../../src/sim/adapter.ts";
import { detectDefects, draftPlan, goalClauses, goalSteps, MAX_GOAL_STEPS, templatePlan } from "../../src/sim/planner.ts";
import { DEFAULT_SIM_PROFILE, loadSimProfile, PLANNER_DEFECTS, PROFILES_DIR, type PlannerDefect, type SimProfile } from "../../src/sim/profile.ts";
import { criticRequest } from "../../src/critic/critic.ts";
import { plannerRequest } from "../../src/planner/planner.ts";
import { TransportError } from "../../src/providers/adapter.ts";
import type { LlmRequest } from "../../src/providers/types.ts";
import { isSimExtra, type SimExtra } from "../../src/sim/extra.ts";
import { fakeClock } from "../providers/helpers.ts";
import { CONTENTLESS_DESCRIPTIONS, criticExtra, descriptionArb, GOAL, goalArb, simRequest } from "../providers/sim-fixtures.ts";

const N = 2000;
const Z99 = 2.5758;

/** The observed share lies within the 99% binomial interval around the profile's rate. */
function expectRate(hits: number, n: number, p: number) {
  const sd = Math.sqrt((p * (1 - p)) / n);
  const observed = hits / n;
  expect(observed, `observed ${observed} for expected ${p} over ${n}`).toBeGreaterThanOrEqual(p - Z99 * sd - 1e-12);
  expect(observed, `observed ${observed} for expected ${p} over ${n}`).toBeLessThanOrEqual(p + Z99 * sd + 1e-12);
}

const codes = (plan: Plan) =>
  runGates(GOAL, plan)
    .map((f) => f.code)
    .sort();

function profileWith(over: { planner?: Partial<SimProfile["planner"]>; critic?: Partial<SimProfile["critic"]> }): SimProfile {
  const zero = loadSimProfile(`${PROFILES_DIR}perfect.yaml`);
  return { ...zero, planner: { ...zero.planner, ...over.planner }, critic: { ...zero.critic, ...over.critic } };
}

function adapter(profile: SimProfile, runSeed = 0, waits?: number[]) {
  return createSimAdapter({ model: "sim-1" }, { profile, runSeed, sleep: async (ms) => void waits?.push(ms) });
}

async function answer(profile: SimProfile, request: LlmRequest, attempt = 0, runSeed = 0): Promise<string> {
  const a = adapter(profile, runSeed);
  const body = a.render({ system: request.system, user: request.user, schemaName: request.schemaName, schema: request.schema, corrections: [] }, "json_schema");
  return (await a.send(canonicalJson(body), { request, attempt, timeoutMs: 1000 })).text;
}

async function audit(profile: SimProfile, extra: SimExtra, trial: number, itemId = extra.goal.id): Promise<CriticOutput> {
  return CriticOutputSchema.parse(JSON.parse(await answer(profile, simRequest("critic", extra, { trial, itemId }))));
}

async function plan(profile: SimProfile, extra: SimExtra, trial: number): Promise<Plan> {
  return PlanSchema.parse(JSON.parse(await answer(profile, simRequest("planner", extra, { trial }))));
}

describe("sim planner template", () => {
  it("passes every gate without defects, for any goal, with or without the goal's steps", () => {
    fc.assert(
      fc.property(goalArb, (goal) => {
        expect(runGates(goal, templatePlan(goal, new Set(), 1, null))).toEqual([]);
        expect(runGates(goal, draftPlan(goal, new Set(), 1, null))).toEqual([]);
      }),
      { numRuns: 300 },
    );
    // Domains named like Object.prototype keys once made the vocabulary lookup return a function.
    for (const domain of ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf"]) {
      const goal = { ...GOAL, domain, description: "Drain the pool. Swap the disks, then resync." };
      expect(runGates(goal, draftPlan(goal, new Set(), 1, null)), domain).toEqual([]);
      expect(detectDefects(goal, draftPlan(goal, new Set(["weak_rollback"]), 1, null)), domain).toEqual(new Set(["weak_rollback"]));
    }
  });

  it("a draft is the template with the goal's steps, the same for every trial that asks, and changes with whatever the planner reads", () => {
    fc.assert(
      fc.property(goalArb, fc.subarray([...PLANNER_DEFECTS]), fc.integer({ min: 1, max: 4 }), (goal, defects, version) => {
        const parent = version > 1 ? `plan-${goal.id}-r${version - 1}` : null;
        const draft = draftPlan(goal, new Set(defects), version, parent);
        expect(draft).toEqual(templatePlan(goal, new Set(defects), version, parent, goalSteps(goal)));
        // Memoized whatever order the defects come in, and frozen, since every trial shares it.
        expect(draftPlan(goal, new Set([...defects].reverse()), version, parent)).toBe(draft);
        expect(Object.isFrozen(draft.tasks[0])).toBe(true);
        // A goal that reads differently never gets another goal's memoized draft.
        const others: Goal[] = [
          { ...goal, id: `${goal.id}-b` },
          { ...goal, domain: `${goal.domain}-b` },
          { ...goal, title: `${goal.title} (again)` },
          { ...goal, description: `${goal.description} Then notify the owners.` },
          { ...goal, constraints: { ...goal.constraints, facts: [...goal.constraints.facts, "extra_fact_done"] } },
        ];
        for (const other of others) {
          expect(draftPlan(other, new Set(defects), version, parent)).toEqual(templatePlan(other, new Set(defects), version, parent, goalSteps(other)));
        }
        expect(draftPlan(goal, new Set(defects), version, "null").parent_id).toBe("null");
      }),
      { numRuns: 100 },
    );
  });

  it("breaks exactly one gate code per defect, and the defects compose", () => {
    const single: Record<PlannerDefect, string> = {
      unverified_dependencies: "precondition_unestablished",
      unsafe_sequencing: "verification_reads_stale_state",
      weak_rollback: "rollback_missing",
    };
    for (const d of PLANNER_DEFECTS) {
      const findings = runGates(GOAL, templatePlan(GOAL, new Set([d]), 1, null));
      expect(findings.map((f) => [f.code, f.family])).toEqual([[single[d], d]]);
    }
    expect(codes(templatePlan(GOAL, new Set(PLANNER_DEFECTS), 1, null))).toEqual(Object.values(single).sort());
    fc.assert(
      fc.property(goalArb, fc.subarray([...PLANNER_DEFECTS]), (goal, defects) => {
        const found = runGates(goal, draftPlan(goal, new Set(defects), 1, null));
        expect(found.map((f) => [f.code, f.family]).sort()).toEqual(defects.map((d) => [single[d], d]).sort());
      }),
      { numRuns: 200 },
    );
  });

  it("recognizes its own defects in a plan (round trip), with or without the goal's steps", () => {
    fc.assert(
      fc.property(fc.subarray([...PLANNER_DEFECTS]), fc.integer({ min: 1, max: 9 }), (defects, version) => {
        expect(detectDefects(GOAL, templatePlan(GOAL, new Set(defects), version, null))).toEqual(new Set(defects));
        expect(detectDefects(GOAL, draftPlan(GOAL, new Set(defects), version, null))).toEqual(new Set(defects));
      }),
    );
    fc.assert(
      fc.property(goalArb, fc.subarray([...PLANNER_DEFECTS]), (goal, defects) => {
        expect(detectDefects(goal, draftPlan(goal, new Set(defects), 2, "p"))).toEqual(new Set(defects));
      }),
      { numRuns: 100 },
    );
  });

  it("no two defect sets give one structure, with or without the goal's steps (what lets a draft's defects be looked up by its structure)", () => {
    const sets = PLANNER_DEFECTS.reduce<PlannerDefect[][]>((all, d) => [...all, ...all.map((s) => [...s, d])], [[]]);
    fc.assert(
      fc.property(goalArb, (goal) => {
        const owner = new Map<string, string>();
        for (const set of sets) {
          for (const plan of [templatePlan(goal, new Set(set), 1, null), draftPlan(goal, new Set(set), 1, null)]) {
            const hash = hashCanonical({ tasks: plan.tasks, dependencies: plan.dependencies });
            expect(owner.get(hash) ?? set.join(","), goal.id).toBe(set.join(","));
            owner.set(hash, set.join(","));
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it("finds a draft's defects in a copy of it (a plan that came back over the wire), for a goal it drafted and for one it never did", () => {
    fc.assert(
      fc.property(goalArb, fc.subarray([...PLANNER_DEFECTS]), fc.integer({ min: 1, max: 4 }), (goal, defects, version) => {
        const copy = JSON.parse(JSON.stringify(draftPlan(goal, new Set(defects), version, null))) as Plan;
        expect(detectDefects(goal, copy)).toEqual(new Set(defects));
        const undrafted = { ...goal, id: `${goal.id}-never-drafted-${version}` };
        const bare = JSON.parse(JSON.stringify(templatePlan(undrafted, new Set(defects), version, null))) as Plan;
        expect(detectDefects(undrafted, bare)).toEqual(new Set(defects));
      }),
      { numRuns: 100 },
    );
  });
});

describe("sim planner goal steps", () => {
  const words = (text: string) => text.match(/[\p{L}\p{N}]+/gu) ?? [];
  const SEPARATOR_WORDS = new Set(["and", "then"]);

  it("adds one low-risk, non-mutating task per clause, placed between the pre-state check and the mutation", () => {
    fc.assert(
      fc.property(goalArb, fc.subarray([...PLANNER_DEFECTS]), (goal, defects) => {
        const steps = goalSteps(goal);
        const bare = templatePlan(goal, new Set(defects), 1, null);
        const draft = draftPlan(goal, new Set(defects), 1, null);
        expect(steps.length).toBeLessThanOrEqual(MAX_GOAL_STEPS);
        expect(steps.map((s) => s.id)).toEqual(steps.map((_, i) => `step_${i + 1}`));
        expect(draft.tasks).toHaveLength(bare.tasks.length + steps.length);
        const added = draft.tasks.filter((t) => t.id.startsWith("step_"));
        expect(added.map((t) => [t.id, t.description, t.kind])).toEqual(steps.map((s) => [s.id, s.description, s.kind]));
        for (const t of added) {
          expect(["read", "notify", "wait"]).toContain(t.kind);
          expect([t.risk, t.blast_radius, t.reversibility]).toEqual(["low", "low", "reversible"]);
          expect([t.mutates, t.destroys, t.establishes, t.produces, t.preconditions]).toEqual([[], [], [], [], []]);
        }
        // The template's own tasks are unchanged, in their order; the steps run just before the mutation.
        expect(draft.tasks.filter((t) => !t.id.startsWith("step_"))).toEqual(bare.tasks);
        const apply = draft.tasks.findIndex((t) => t.kind === "mutate");
        expect(draft.tasks.slice(apply - steps.length, apply).map((t) => t.id)).toEqual(steps.map((s) => s.id));
      }),
      { numRuns: 200 },
    );
  });

  it("takes each step's description from the goal's own text and loses none of its words", () => {
    fc.assert(
      fc.property(descriptionArb, (description) => {
        const collapsed = description.replace(/\s+/g, " ");
        const clauses = goalClauses(description);
        for (const c of clauses) {
          expect(c.length).toBeGreaterThan(0);
          expect(collapsed).toContain(c);
          expect(words(c).length).toBeGreaterThan(0);
        }
        const kept = new Set(clauses.flatMap(words));
        for (const w of words(description)) if (!SEPARATOR_WORDS.has(w.toLowerCase())) expect(kept).toContain(w);
      }),
      { numRuns: 500 },
    );
  });

  it("splits sentences and sequenced clauses, and keeps at most MAX_GOAL_STEPS", () => {
    expect(goalClauses("Announce the date, add headers, and run two brownouts for a day.  Then, wait;\n ask owners, then turn v1 off! Done?")).toEqual([
      "Announce the date, add headers",
      "run two brownouts for a day",
      "Then, wait",
      "ask owners",
      "turn v1 off",
      "Done",
    ]);
    expect(goalClauses("Keep 1,400 RPS and v2.8 (a, b) intact")).toEqual(["Keep 1,400 RPS and v2.8 (a, b) intact"]);
    const many = Array.from({ length: 14 }, (_, i) => `Step ${i + 1}.`).join(" ");
    const clauses = goalClauses(many);
    expect(clauses).toHaveLength(MAX_GOAL_STEPS);
    expect(clauses.at(-1)).toBe("Step 10. Step 11. Step 12. Step 13. Step 14");
    expect(goalSteps({ ...GOAL, description: "Email the owners. Watch errors for two days. Drain node a." }).map((s) => s.kind)).toEqual([
      "notify",
      "wait",
      "read",
    ]);
  });

  it("writes the bare template for a description without a letter or digit", () => {
    for (const description of CONTENTLESS_DESCRIPTIONS) {
      const goal = { ...GOAL, description };
      expect(goalSteps(goal)).toEqual([]);
      expect(draftPlan(goal, new Set(), 1, null)).toEqual(templatePlan(goal, new Set(), 1, null));
      expect(runGates(goal, draftPlan(goal, new Set(), 1, null))).toEqual([]);
    }
  });

  it("never reads a corpus expectation: a goal with an expect block plans the same as without", async () => {
    const goal = { ...GOAL, description: "Snapshot the tenants. Split the schema, then verify row counts." };
    const withExpect = { ...goal, category: "strict", expect: { verdict: "approve", min_tasks: 40, mandatory_elements: ["zebra"] } } as unknown as Goal;
    const profile = loadSimProfile(`${PROFILES_DIR}noisy.yaml`);
    for (let t = 0; t < 20; t++) {
      expect(await answer(profile, simRequest("planner", { goal: withExpect, mode: "decompose" }, { trial: t }))).toBe(
        await answer(profile, simRequest("planner", { goal, mode: "decompose" }, { trial: t })),
      );
    }
  });

  it("drafts carry the goal's steps, and a revision keeps them while it fixes or regresses the template", async () => {
    const goal = { ...GOAL, description: "Snapshot the tenants. Split the schema, then verify row counts; email the owners." };
    const steps = goalSteps(goal).map((s) => s.id);
    expect(steps).toEqual(["step_1", "step_2", "step_3", "step_4"]);
    const stepIds = (p: Plan) => p.tasks.filter((t) => t.id.startsWith("step_")).map((t) => t.id);
    const noisy = profileWith({
      planner: { defect_rate: { unverified_dependencies: 0.5, unsafe_sequencing: 0.5, weak_rollback: 0.5 }, fix_rate: 0.5, regression_rate: 0.5 },
    });
    for (let t = 0; t < 50; t++) {
      const first = await plan(noisy, { goal, mode: "decompose" }, t);
      expect(stepIds(first)).toEqual(steps);
      const carried = detectDefects(goal, first)!;
      const findings = [...carried].map((family) => ({ key: family, family, task_id: null, origin: "gate" as const }));
      const revised = await plan(noisy, { goal, plan: first, findings, mode: "revise" }, t);
      expect(stepIds(revised)).toEqual(steps);
      expect(detectDefects(goal, revised)).not.toBeNull();
      expect(revised.parent_id).toBe(first.id);
    }
    const flawed = draftPlan(goal, new Set(["weak_rollback"]), 1, null);
    const fixAll = profileWith({ planner: { fix_rate: 1 } });
    const fixed = await plan(
      fixAll,
      { goal, plan: flawed, findings: [{ key: "k", family: "weak_rollback", task_id: null, origin: "gate" }], mode: "revise" },
      0,
    );
    expect(fixed.tasks).toEqual(draftPlan(goal, new Set(), 2, flawed.id).tasks);
  });
});

describe("sim determinism", () => {
  async function session(runSeed: number) {
    const client = createModelClient(
      {
        planner: { provider: "sim", model: "sim-planner-1" },
        critic: { provider: "sim", model: "sim-critic-1" },
        sim: { runSeed, profile: loadSimProfile(`${PROFILES_DIR}noisy.yaml`) },
      },
      fakeClock(),
    );
    const calls = [];
    for (let trial = 0; trial < 20; trial++) {
      const p = await client.structured(simRequest("planner", { goal: GOAL, mode: "decompose" }, { trial }), PlanSchema);
      calls.push(...p.calls);
      if (!p.ok) continue;
      const c = await client.structured(simRequest("critic", criticExtra(p.value), { trial }), CriticOutputSchema);
      calls.push(...c.calls);
    }
    return JSON.stringify(calls);
  }

  it("gives byte-identical records for the same seed, and different ones for another seed", async () => {
    const a = await session(11);
    expect(await session(11)).toBe(a);
    expect(await session(12)).not.toBe(a);
  });

  it("draws independently across trial indices", async () => {
    const profile = profileWith({ critic: { miss_rate: { ...DEFAULT_SIM_PROFILE.critic.miss_rate, weak_rollback: 0.5 } } });
    const defective = templatePlan(GOAL, new Set(["weak_rollback"]), 1, null);
    let both = 0;
    for (let i = 0; i < N; i++) {
      const missed0 = (await audit(profile, criticExtra(defective), 0, `item-${i}`)).findings.length === 0;
      const missed1 = (await audit(profile, criticExtra(defective), 1, `item-${i}`)).findings.length === 0;
      if (missed0 && missed1) both++;
    }
    expectRate(both, N, 0.25); // independent draws: P(both missed) = m^2
  });
});

describe("sim noise rates over 2,000 draws lie within their 99% binomial intervals", () => {
  const clean = templatePlan(GOAL, new Set(), 1, null);

  it("planner defect rates", async () => {
    const profile = profileWith({ planner: { defect_rate: { unverified_dependencies: 0.3, unsafe_sequencing: 0.1, weak_rollback: 0.5 } } });
    const counts: Record<string, number> = { unverified_dependencies: 0, unsafe_sequencing: 0, weak_rollback: 0 };
    for (let t = 0; t < N; t++) {
      for (const d of detectDefects(GOAL, await plan(profile, { goal: GOAL, mode: "decompose" }, t))!) counts[d]!++;
    }
    expectRate(counts.unverified_dependencies!, N, 0.3);
    expectRate(counts.unsafe_sequencing!, N, 0.1);
    expectRate(counts.weak_rollback!, N, 0.5);
  });

  it("revision fix rate and regression rate", async () => {
    const profile = profileWith({ planner: { fix_rate: 0.7, regression_rate: 0.2 } });
    const flawed = templatePlan(GOAL, new Set(["weak_rollback"]), 1, null);
    const findings = [{ key: "k", family: "weak_rollback", task_id: "migrate_schema", origin: "gate" as const }];
    let fixed = 0;
    let regressed = 0;
    for (let t = 0; t < N; t++) {
      const fixedPlan = await plan(profile, { goal: GOAL, plan: flawed, findings, mode: "revise" }, t);
      if (!detectDefects(GOAL, fixedPlan)!.has("weak_rollback")) fixed++;
      const revisedClean = await plan(profile, { goal: GOAL, plan: clean, findings: [], mode: "revise" }, t);
      if (detectDefects(GOAL, revisedClean)!.size > 0) regressed++;
      expect(revisedClean.parent_id).toBe(clean.id);
    }
    expectRate(fixed, N, 0.7);
    expectRate(regressed, N, 0.2);
  });

  it("critic miss rate (per family) and migration rate", async () => {
    const profile = profileWith({
      critic: { miss_rate: { ...DEFAULT_SIM_PROFILE.critic.miss_rate, unsafe_sequencing: 0.15 }, migration_rate: 0.25 },
    });
    const flawed = templatePlan(GOAL, new Set(["unsafe_sequencing"]), 1, null);
    let reported = 0;
    let migrated = 0;
    for (let t = 0; t < N; t++) {
      const { findings } = await audit(profile, criticExtra(flawed), t);
      if (findings.length === 0) continue;
      reported++;
      expect(findings[0]!.evidence.claim).toBe("verification_misordered");
      if (findings[0]!.family !== "unsafe_sequencing") {
        expect(["risk", "missing_steps"]).toContain(findings[0]!.family);
        migrated++;
      }
    }
    expectRate(N - reported, N, 0.15);
    expectRate(migrated, reported, 0.25);
  });

  it("severity inflation and hallucination rates", async () => {
    const profile = profileWith({ critic: { severity_inflation_rate: 0.1, hallucination_rate: 0.05 } });
    const ids = new Set(clean.tasks.map((t) => t.id));
    let inflated = 0;
    let hallucinated = 0;
    for (let t = 0; t < N; t++) {
      for (const f of (await audit(profile, criticExtra(clean), t)).findings) {
        expect(f.severity).toBe("blocker");
        if (f.evidence.claim === "other") inflated++;
        else {
          const ghost = f.evidence.tasks.some((id) => !ids.has(id));
          const [a, b] = f.evidence.tasks;
          const contradicted = f.evidence.claim === "misordered" && clean.tasks.findIndex((x) => x.id === b) < clean.tasks.findIndex((x) => x.id === a);
          expect(ghost || contradicted).toBe(true);
          hallucinated++;
        }
      }
    }
    expectRate(inflated, N, 0.1);
    expectRate(hallucinated, N, 0.05);
  });

  it("invalid output rate per attempt, for both roles", async () => {
    const profile = profileWith({ planner: { invalid_output_rate: 0.2 }, critic: { invalid_output_rate: 0.08 } });
    const invalid = { planner: 0, critic: 0 };
    for (let t = 0; t < N; t++) {
      const p = await answer(profile, simRequest("planner", { goal: GOAL, mode: "decompose" }, { trial: t }), t % 3);
      if (!PlanSchema.safeParse(safeJson(p)).success) invalid.planner++;
      const c = await answer(profile, simRequest("critic", criticExtra(clean), { trial: t }), t % 3);
      if (!CriticOutputSchema.safeParse(safeJson(c)).success) invalid.critic++;
    }
    expectRate(invalid.planner, N, 0.2);
    expectRate(invalid.critic, N, 0.08);
  });

  it("a seeded (gate-invisible) defect is blocked with probability 1 - m", async () => {
    const profile = profileWith({ critic: { miss_rate: { ...DEFAULT_SIM_PROFILE.critic.miss_rate, unverified_dependencies: 0.3 } } });
    const fixture = FixtureSchema.parse({
      id: "fx-1",
      description: "verify reads the wrong output, invisible to the gates by construction",
      group: "g",
      goal: GOAL,
      plan: clean,
      seeded_defects: [
        { task: "verify_migration", family: "unverified_dependencies", claim: { kind: "other", tasks: ["verify_migration"] }, gate_visible: false },
      ],
      expected_verdict: { strict: "escalate", balanced: "approve" },
      expected_critic_verdict: { strict: "block", balanced: "pass" },
    });
    let blocked = 0;
    for (let t = 0; t < N; t++) {
      const { findings } = await audit(profile, criticExtra(clean, { fixture }), t);
      if (findings.some((f) => f.task_id === "verify_migration" && f.family === "unverified_dependencies")) blocked++;
    }
    expectRate(blocked, N, 0.7);
  });
});

describe("what the sim reads of a request", () => {
  const client = createModelClient({ planner: { provider: "sim", model: "p" }, critic: { provider: "sim", model: "c" } });
  const call = { client, itemId: GOAL.id, trial: 0, round: 1 };
  const plan = templatePlan(GOAL, new Set(), 1, null);

  it("is the extra the planner and the critic attach, for every planner mode and a fixture's review", () => {
    const findings = runGates(GOAL, templatePlan(GOAL, new Set(["weak_rollback"]), 1, null));
    for (const mode of ["decompose", "revise", "restart"] as const) {
      const extra = plannerRequest(GOAL, mode, call, mode === "decompose" ? undefined : { plan, findings }).extra;
      expect(isSimExtra(extra), mode).toBe(true);
    }
    const fixture = FixtureSchema.parse({
      id: "fx-extra",
      description: "a fixture the critic reviews",
      group: "g",
      goal: GOAL,
      plan,
      seeded_defects: [],
      expected_verdict: { strict: "approve", balanced: "approve" },
      expected_critic_verdict: { strict: "pass", balanced: "pass" },
    });
    const extra = criticRequest(GOAL, plan, findings, { ...call, fixture }).extra;
    expect(isSimExtra(extra)).toBe(true);
    expect(extra).toMatchObject({ goal: GOAL, plan, gateFindings: findings, fixture });
  });

  it("is refused, before any draw, when a request carries none or one of another shape (bad_request: nothing to answer)", async () => {
    const waits: number[] = [];
    const a = adapter(DEFAULT_SIM_PROFILE, 0, waits);
    const body = canonicalJson(a.render({ system: "", user: "", schemaName: "x", schema: {}, corrections: [] }, "json_schema"));
    const good = simRequest("critic", criticExtra(plan));
    const refused = [
      undefined,
      { ...good, extra: undefined },
      { ...good, extra: { plan } },
      { ...good, extra: { goal: { ...GOAL, constraints: {} }, plan } },
      { ...good, extra: { goal: GOAL, plan: { ...plan, tasks: "none" } } },
      { ...good, extra: { goal: GOAL, mode: "toString" } },
      { ...good, extra: { goal: GOAL, fixture: { id: "fx" } } },
    ];
    for (const request of refused) {
      const sent = a.send(body, { request, attempt: 0, timeoutMs: 1 });
      await expect(sent).rejects.toBeInstanceOf(TransportError);
      await expect(sent).rejects.toMatchObject({ errorClass: "bad_request" });
    }
    expect(waits).toEqual([]);
    await a.send(body, { request: good, attempt: 0, timeoutMs: 1 });
    expect(waits).toHaveLength(1);
  });
});

describe("sim latency", () => {
  it("sleeps a fixed latency through the injected sleep", async () => {
    const waits: number[] = [];
    const a = adapter(profileWith({ critic: { latency_ms: 1234 } }), 0, waits);
    const request = simRequest("critic", criticExtra(templatePlan(GOAL, new Set(), 1, null)));
    await a.send(canonicalJson(a.render({ system: "", user: "", schemaName: "x", schema: {}, corrections: [] }, "json_schema")), {
      request,
      attempt: 0,
      timeoutMs: 1,
    });
    expect(waits).toEqual([1234]);
  });

  it("draws a latency range uniformly", async () => {
    const waits: number[] = [];
    const a = adapter(profileWith({ planner: { latency_ms: { min: 100, max: 300 } } }), 0, waits);
    for (let t = 0; t < N; t++) {
      await a.send(canonicalJson(a.render({ system: "", user: "", schemaName: "x", schema: {}, corrections: [] }, "json_schema")), {
        request: simRequest("planner", { goal: GOAL }, { trial: t }),
        attempt: 0,
        timeoutMs: 1,
      });
    }
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...waits)).toBeLessThanOrEqual(300);
    expectRate(waits.filter((w) => w < 150).length, N, 0.25);
  });
});

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
