import { describe, expect, it } from "vitest";
import { CriticOutputSchema } from "../../src/formats/findings.ts";
import { PlanSchema } from "../../src/formats/plan.ts";
import type { Role } from "../../src/formats/records.ts";
import { runGates } from "../../src/gates/index.ts";
import { attemptCost, createModelClient, type ClientConfig, type RoleConfig } from "../../src/providers/client.ts";
import type { AttemptEvent } from "../../src/providers/types.ts";
import { loadSimProfile, PROFILES_DIR } from "../../src/sim/profile.ts";
import { Throttle } from "../../src/providers/throttle.ts";
import { chatCompletion, errorBody, useFakeServers } from "./fake-server.ts";
import { criticRequest, fakeClock, VALID_CRITIC_ANSWER } from "./helpers.ts";
import { criticExtra, GOAL, simRequest } from "./sim-fixtures.ts";
import { templatePlan } from "../../src/sim/planner.ts";

const SIM: ClientConfig = { planner: { provider: "sim", model: "sim-planner-1" }, critic: { provider: "sim", model: "sim-critic-1" } };
const clean = templatePlan(GOAL, new Set(), 1, null);

describe("client accounting and budget", () => {
  it("refuses a call when the budget hook says so, without sending or recording", async () => {
    const asked: Role[] = [];
    const client = createModelClient(SIM, { ...fakeClock(), beforeCall: (role) => (asked.push(role), "budget_exceeded") });
    const r = await client.structured(simRequest("critic", criticExtra(clean)), CriticOutputSchema);
    expect(r).toMatchObject({ ok: false, outcome: "budget_exceeded", rawText: null, calls: [] });
    expect(asked).toEqual(["critic"]);
  });

  it("stops mid-way through structured-output attempts when the budget runs out", async () => {
    const alwaysInvalid = loadSimProfile(`${PROFILES_DIR}perfect.yaml`);
    alwaysInvalid.critic.invalid_output_rate = 1;
    let budget = 2;
    const client = createModelClient(
      { ...SIM, sim: { profile: alwaysInvalid, runSeed: 0 } },
      { ...fakeClock(), beforeCall: () => (budget-- > 0 ? "ok" : "budget_exceeded") },
    );
    const r = await client.structured(simRequest("critic", criticExtra(clean)), CriticOutputSchema);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.outcome).toBe("budget_exceeded");
    expect(r.calls.map((c) => c.outcome)).toEqual(["invalid_output", "invalid_output"]);
    expect(r.rawText).toBe(r.calls[1]!.raw_text);
  });

  it("prices sim calls at 0 and reports every call record through onCall", async () => {
    const seen: string[] = [];
    const client = createModelClient(SIM, { ...fakeClock(), onCall: (c) => seen.push(`${c.role}:${c.attempt}:${c.outcome}`) });
    const p = await client.structured(simRequest("planner", { goal: GOAL, mode: "decompose" }), PlanSchema);
    expect(p.ok).toBe(true);
    expect(p.calls[0]!.cost_usd).toBe(0);
    expect(p.calls[0]!.context).toMatchObject({ provider: "sim", model: "sim-planner-1", base_url: null, sdk: "fieldtest-sim" });
    expect(seen).toEqual(p.calls.map((c) => `planner:${c.attempt}:${c.outcome}`));
  });

  it("honours maxOutputAttempts", async () => {
    const alwaysInvalid = loadSimProfile(`${PROFILES_DIR}perfect.yaml`);
    alwaysInvalid.planner.invalid_output_rate = 1;
    const client = createModelClient({ ...SIM, maxOutputAttempts: 5, sim: { profile: alwaysInvalid, runSeed: 0 } }, fakeClock());
    const r = await client.structured(simRequest("planner", { goal: GOAL }), PlanSchema);
    expect(r).toMatchObject({ ok: false, outcome: "invalid_output" });
    expect(r.calls).toHaveLength(5);
    expect(r.calls.every((c) => c.validation_error !== null)).toBe(true);
  });
});

describe("what a send costs", () => {
  const startServer = useFakeServers();

  it("a send that may have been billed without usage (a cut body) makes the call's cost unknown, though a retry answered", async () => {
    const answer = chatCompletion(JSON.stringify(VALID_CRITIC_ANSWER));
    const server = await startServer([{ truncate: answer }, { status: 503, body: errorBody("busy") }, { status: 200, body: answer }]);
    const role: RoleConfig = { provider: "openai", model: "gpt-4o-mini", baseUrl: `${server.url}/v1` };
    const events: AttemptEvent[] = [];
    const client = createModelClient({ planner: role, critic: role }, { ...fakeClock(), random: () => 0, env: {}, onAttempt: (e) => events.push(e) });
    const result = await client.structured(criticRequest(), CriticOutputSchema);
    expect(result.ok).toBe(true);
    const priced = (100 * 0.15 + 20 * 0.6) / 1_000_000;
    // sent and returned, paired by id, one pair per send, the cut body unknown, the 503 free
    expect(events.map((e) => [e.phase, e.id, e.phase === "returned" ? e.cost_usd : null])).toEqual([
      ["sent", 0, null],
      ["returned", 0, null],
      ["sent", 1, null],
      ["returned", 1, 0],
      ["sent", 2, null],
      ["returned", 2, priced],
    ]);
    expect(result.calls[0]!.cost_usd).toBeNull();
    expect(attemptCost("openai", "gpt-4o-mini", result.calls[0]!.transport_attempts[2]!, { input_tokens: 100, output_tokens: 20 })).toBe(priced);
  });

  it("a send refused with an error status costs nothing, and the sim never costs", async () => {
    const attempt = { index: 0, latency_ms: 1, outcome: "error" as const, error_class: "rate_limited", http_status: 429 };
    expect(attemptCost("openai", "gpt-4o-mini", attempt, null)).toBe(0);
    expect(attemptCost("openai", "gpt-4o-mini", { ...attempt, http_status: null, error_class: "timeout" }, null)).toBeNull();
    // A failure sent with a success status (a gateway's error envelope) was not refused by status: it may have been billed.
    expect(attemptCost("openai", "gpt-4o-mini", { ...attempt, http_status: 200, error_class: "server_error" }, null)).toBeNull();
    expect(attemptCost("sim", "anything", { ...attempt, http_status: null }, null)).toBe(0);
    expect(attemptCost("openai", "no-such-model", { ...attempt, outcome: "ok", http_status: 200 }, { input_tokens: 1, output_tokens: 1 })).toBeNull();
  });
});

describe("throttle", () => {
  it("holds requests per minute on the injected clock", async () => {
    const clock = fakeClock(0);
    const throttle = new Throttle(undefined, 2, clock);
    const starts: number[] = [];
    for (let i = 0; i < 5; i++) {
      await throttle.acquire();
      starts.push(clock.now());
    }
    expect(starts).toEqual([0, 0, 60_000, 60_000, 120_000]);
  });

  it("without limits starts every task at once and never waits to send", async () => {
    const throttle = new Throttle(undefined, undefined, fakeClock());
    let running = 0;
    const release: (() => void)[] = [];
    const tasks = Array.from({ length: 6 }, () =>
      throttle.run(async () => {
        running++;
        await throttle.acquire();
        await new Promise<void>((r) => release.push(r));
      }),
    );
    expect(running).toBe(6);
    await new Promise((r) => setImmediate(r));
    release.forEach((r) => r());
    await Promise.all(tasks);
  });

  it("never runs more tasks at once than its concurrency", async () => {
    const throttle = new Throttle(2, undefined, fakeClock());
    let running = 0;
    let peak = 0;
    let finished = 0;
    const release: (() => void)[] = [];
    const tasks = Array.from({ length: 6 }, () =>
      throttle.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((r) => release.push(r));
        running--;
        finished++;
      }),
    );
    while (finished < 6) {
      await new Promise((r) => setImmediate(r));
      release.shift()?.();
    }
    await Promise.all(tasks);
    expect(peak).toBe(2);
  });
});

describe("sim loop behaviours", () => {
  /** A minimal gates-only revise loop, enough to show the sim planner's dynamics. */
  async function loop(trial: number, client: ReturnType<typeof createModelClient>) {
    const first = await client.structured(simRequest("planner", { goal: GOAL, mode: "decompose" }, { trial }), PlanSchema);
    if (!first.ok) return "planner_unavailable";
    let plan = first.value;
    const seen = [runGates(GOAL, plan).map((f) => f.key)];
    for (let round = 1; round < 4; round++) {
      const findings = runGates(GOAL, plan);
      if (findings.length === 0) return round === 1 ? "approved_first" : "approved_after_revision";
      const r = await client.structured(
        simRequest(
          "planner",
          { goal: GOAL, plan, findings: findings.map((f) => ({ key: f.key, family: f.family, task_id: f.task_id, origin: "gate" as const })), mode: "revise" },
          { trial, round },
        ),
        PlanSchema,
      );
      if (!r.ok) return "planner_unavailable";
      const keys = runGates(GOAL, r.value).map((f) => f.key);
      if (keys.some((k) => !seen.at(-1)!.includes(k) && seen.slice(0, -1).some((s) => s.includes(k)))) return "regression";
      if (keys.join() === seen.at(-1)!.join()) return "stalled";
      seen.push(keys);
      plan = r.value;
    }
    return runGates(GOAL, plan).length === 0 ? "approved_after_revision" : "cap";
  }

  it("produces approvals, fixes after revision, stalls and regressions under the noisy profile", async () => {
    const client = createModelClient({ ...SIM, sim: { profile: loadSimProfile(`${PROFILES_DIR}noisy.yaml`), runSeed: 3 } }, fakeClock());
    const outcomes = new Set<string>();
    for (let trial = 0; trial < 300; trial++) outcomes.add(await loop(trial, client));
    for (const o of ["approved_first", "approved_after_revision", "stalled", "regression"]) expect(outcomes).toContain(o);
  });
});
