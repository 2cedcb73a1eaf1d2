import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineGoal } from "../../harness/engine/goal.ts";
import { readPlannerCriticResult } from "../../harness/engine/readers/planner-critic.ts";
import { trialKey, type CallRecord } from "../../src/formats/records.ts";
import { runFieldtest } from "../helpers/cli.ts";
import { makeGoal } from "../helpers/plans.ts";
import { call } from "../metrics/builders.ts";
import { startPlannerCriticModel, type PlannerCriticModel } from "../tools/planner-critic-model.ts";
import { engineDir, served, summaryOf, trialsOf } from "./helpers.ts";

/**
 * engines/planner-critic.yaml against the real PlannerCritic 0.1.0 engine (Python), opt-in:
 * PLANNER_CRITIC_PYTHON names a Python that can run it (and PLANNER_CRITIC_SRC a source checkout
 * when the package is not installed there). Without it the suite says so and skips; the manifest,
 * the goal translation and the trace reader are tested below either way.
 */
const PYTHON = process.env.PLANNER_CRITIC_PYTHON;
if (!PYTHON)
  process.stdout.write(
    "test/external-engine/planner-critic.test.ts: the real PlannerCritic engine is not run: PLANNER_CRITIC_PYTHON is not set (see engines/planner-critic.yaml)\n",
  );

const KEY = "sk-planner-critic-test-secret-0123456789";
const GOALS = "db-01*,dns-01*,cache-01*,cdn-01*,erp-01*";
const ENV = { OPENAI_API_KEY: KEY, PATH: process.env.PATH, PLANNER_CRITIC_PYTHON: PYTHON, PLANNER_CRITIC_SRC: process.env.PLANNER_CRITIC_SRC };

describe.skipIf(!PYTHON)("PlannerCritic 0.1.0 through engines/planner-critic.yaml (opt-in: PLANNER_CRITIC_PYTHON)", () => {
  let model: PlannerCriticModel;
  let failing: PlannerCriticModel;
  beforeAll(async () => {
    model = await startPlannerCriticModel();
    failing = await startPlannerCriticModel({ critic: "fail" });
  });
  afterAll(async () => {
    await model.close();
    await failing.close();
  });

  const run = (server: PlannerCriticModel, out: string) =>
    runFieldtest(
      [
        "run",
        "--engine",
        "engines/planner-critic.yaml",
        ...served(server.url, "gpt-4o-mini"),
        "--only",
        GOALS,
        "--trials",
        "3",
        "--concurrency",
        "3",
        "--out",
        out,
      ],
      ENV,
    );

  it("gives one run of 15 trials with verdicts, every answered call recorded once, in order, as the engine sent it", async () => {
    const out = join(engineDir(), "pc");
    const before = model.received.length;
    const result = await run(model, out);
    expect(result.code).toBe(0);
    const trials = trialsOf(out);
    expect(trials).toHaveLength(15);
    expect(new Set(trials.map(trialKey)).size).toBe(15);
    expect(trials.every((t) => t.engine!.outcome === "ok" && (t.status === "approved" || t.status === "escalated"))).toBe(true);
    const calls = trials.flatMap((t) => t.calls);
    expect(calls).toHaveLength(model.received.length - before);
    for (const t of trials) {
      expect(t.calls.map((c) => c.proxy!.seq)).toEqual(t.calls.map((_, i) => i));
      expect(t.calls.map((c) => c.role)).toEqual(t.calls.map((_, i) => (i % 2 === 0 ? "planner" : "critic")));
    }
    expect(calls.every((c) => c.context.temperature === null && c.context.max_tokens === 16384 && c.context.response_format === "json_object")).toBe(true);
    expect(calls.every((c) => /python-httpx/.test(c.proxy!.user_agent ?? ""))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(manifest.config.engine.version).toMatch(/^plancritic 0\.1\.0$/);
    const files = readdirSync(out).map((f) => readFileSync(join(out, f), "utf8"));
    expect(files.some((text) => text.includes(KEY))).toBe(false);
    expect((await runFieldtest(["report", out])).code).toBe(0);
    const baseline = join(engineDir(), "b.json");
    expect((await runFieldtest(["baseline", "publish", out, "--out", baseline])).code).toBe(0);
    expect([0, 1, 2]).toContain((await runFieldtest(["gate", out, "--baseline", baseline, "--policy", "gate.engine.yaml"])).code);
    // Its prompts carry the plan's wall-clock created_at: the manifest's normalisation keys them for replay.
    const replayed = join(engineDir(), "pc-replayed");
    const sent = model.received.length;
    expect(
      (await runFieldtest(["run", "--engine", "engines/planner-critic.yaml", "--replay", out, "--only", GOALS, "--trials", "3", "--out", replayed], ENV)).code,
    ).toBe(0);
    expect(model.received.length).toBe(sent);
    const verdicts = (dir: string) => Object.fromEntries(trialsOf(dir).map((t) => [trialKey(t), [t.status, t.rounds.map((r) => r.structural_hash)]]));
    expect(verdicts(replayed)).toEqual(verdicts(out));
  }, 300_000);

  it("with the critic answering 500, counts no trial approved and fail_open_approval above 0", async () => {
    const out = join(engineDir(), "pc-failing");
    await run(failing, out);
    const trials = trialsOf(out);
    expect(trials.filter((t) => t.status === "approved")).toEqual([]);
    expect(trials.every((t) => t.engine!.outcome === "provider_error")).toBe(true);
    expect(summaryOf(out).metrics.fail_open_approval!.value).toBeGreaterThan(0);
  }, 300_000);
});

describe("the PlannerCritic translation, without the engine", () => {
  it("hands the engine its goal in its own format: the title leads, the facts follow, the budget counts rounds", () => {
    const goal = makeGoal(["window_booked"], {
      title: "Upgrade the database",
      constraints: { facts: ["window_booked"], tools: ["psql"], environment: "production", max_revisions: 3 },
    });
    expect(engineGoal("planner-critic", goal)).toEqual({
      id: goal.id,
      description: "Upgrade the database\n\nA goal for tests\n\nFacts that hold before any task runs: window_booked.",
      constraints: { environment: "production", tools: ["psql"], budget: { max_revisions: 4 } },
      risk_tolerance: "strict",
      replan_policy: "patch",
      metadata: { domain: "test", source: "fieldtest" },
    });
    expect(engineGoal("fieldtest", goal)).toBe(goal);
  });

  it("reads rounds from the recorded calls and the decision from trace.json, marking the verify tasks it invents", () => {
    const goal = makeGoal();
    const plan = (version: number) => ({
      id: `p${version}`,
      goal_id: goal.id,
      version,
      tasks: [
        {
          id: "change",
          description: "change it",
          risk_class: "high",
          verification: { what: "it", how: "check", expected: "ok" },
          rollback: { trigger: "fails", action: "undo" },
        },
      ],
      dependencies: [],
    });
    const answer = (role: "planner" | "critic", text: string): CallRecord => ({ ...call({ role }), raw_text: text });
    const calls = [
      answer("planner", JSON.stringify(plan(1))),
      answer("critic", JSON.stringify({ findings: [{ heuristic_family: "weak_rollback", severity: "blocker", task_id: "change", message: "weak rollback" }] })),
      answer("planner", JSON.stringify(plan(2))),
      answer("critic", JSON.stringify({ findings: [] })),
    ];
    const trace = {
      dimension: "core-api",
      goal_id: goal.id,
      duration_seconds: 3,
      result: { status: "approved", reason_code: "approved", revision_count: 2, llm_calls: 2 },
      plan: plan(2),
      findings: [],
      error: null,
    };
    const run = readPlannerCriticResult(trace, goal, calls);
    expect(run.status).toBe("approved");
    expect(run.reasons).toEqual([]);
    expect(run.rounds).toHaveLength(2);
    expect(run.rounds.map((r) => r.translatedTasks)).toEqual([["change.verify"], ["change.verify"]]);
    expect(run.rounds[0]!.critic!.findings[0]).toMatchObject({ family: "weak_rollback", severity: "blocker" });
    expect(run.rounds[1]!.critic!.findings).toEqual([]);
    expect(() => readPlannerCriticResult({ dimension: "core-api" }, goal, calls)).toThrow(/trace\.json: goal_id/);
  });
});
