import { describe, expect, it } from "vitest";
import { EstimateSchema } from "../../harness/config.ts";
import { BudgetGuard, estimateSweep, refuseByEstimate } from "../../harness/run/budget.ts";
import { NO_SPEND } from "../../harness/run/journal.ts";
import { isInteractive, Progress, progressLine, startPlainProgress } from "../../harness/run/progress.ts";
import { resolveRun, RunCliSchema } from "../../harness/run/settings.ts";
import { planTrials } from "../../harness/run/work.ts";
import { engineOutcome } from "../../src/loop/outcome.ts";
import { DEFAULT_SIM_PROFILE } from "../../src/sim/profile.ts";
import type { SpendLine, TrialRecord } from "../../src/formats/records.ts";

const config = (raw: Record<string, unknown>) => resolveRun({}, RunCliSchema.parse(raw), { loadProfile: () => DEFAULT_SIM_PROFILE }).config;
const assumptions = EstimateSchema.parse({});

describe("estimate", () => {
  it("derives calls, tokens and cost per role from the plan and the price table", () => {
    const est = estimateSweep({ corpusTrials: 10, boundaryTrials: 4 }, config({ provider: "openai", model: "m" }), assumptions, () => 0.5);
    expect(est.roles.map((r) => [r.role, r.calls, r.inputTokens, r.costUsd])).toEqual([
      ["planner", 20, 20 * 2500, 10],
      ["critic", 24, 24 * 4000, 12],
    ]);
    expect(est.costUsd).toBe(22);
    expect(est.roles[0]!.derivation.join("\n")).toContain("10 engine trials × 2 rounds");
  });

  it("gates-only makes no critic call on engine trials", () => {
    const est = estimateSweep({ corpusTrials: 10, boundaryTrials: 0 }, config({ mode: "gates-only" }), assumptions, () => 0);
    expect(est.roles[1]!.calls).toBe(0);
  });

  it("an unknown price is unknown cost, and a USD budget then refuses to start", () => {
    const est = estimateSweep({ corpusTrials: 1, boundaryTrials: 0 }, config({ provider: "openai", model: "mystery" }), assumptions, () => null);
    expect(est.costUsd).toBeNull();
    expect(refuseByEstimate(est, { budgetUsd: 100, maxCalls: null })).toMatch(/price table has none for openai\/mystery/);
    expect(refuseByEstimate(est, { budgetUsd: null, maxCalls: 100 })).toBeNull();
  });
});

describe("budget guard", () => {
  it("refuses the call past --max-calls, remembers the trial it cut, and stays tripped", () => {
    const guard = new BudgetGuard({ budgetUsd: null, maxCalls: 2 }, { calls: 1, cost_usd: 0, unknown_cost_calls: 0 });
    expect(guard.beforeCall("critic", "corpus/a/0")).toBe("ok");
    expect(guard.beforeCall("critic", "corpus/b/0")).toBe("budget_exceeded");
    expect(guard.wasCut("corpus/b/0")).toBe(true);
    expect(guard.wasCut("corpus/a/0")).toBe(false);
    expect(guard.tripped).toMatch(/--max-calls 2 reached/);
  });

  const returned = (cost_usd: number | null, over: Partial<Extract<SpendLine, { event: "returned" }>> = {}): SpendLine => ({
    schema_version: 1,
    event: "returned",
    session: "1-a",
    id: 0,
    at: "2026-01-01T00:00:00.000Z",
    role: "critic",
    outcome: "ok",
    error_class: null,
    http_status: 200,
    usage: cost_usd === null ? null : { input_tokens: 10, output_tokens: 5 },
    cost_usd,
    ...over,
  });

  it("counts spend from journaled returns and trips once it reaches the USD budget", () => {
    const guard = new BudgetGuard({ budgetUsd: 1, maxCalls: null });
    expect(guard.beforeCall("critic")).toBe("ok");
    guard.onSpend(returned(0.5));
    expect(guard.beforeCall("critic")).toBe("ok");
    guard.onSpend(returned(0.5));
    expect(guard.beforeCall("critic")).toBe("budget_exceeded");
    expect(guard.tripped).toBe("--budget-usd 1 reached ($1.0000 spent)");
  });

  it("admits a send only while the spend, the sends in flight and this one, each at the dearest send so far, fit the budget", () => {
    const admitted = (guard: BudgetGuard, role: "planner" | "critic" = "critic") => {
      let n = 0;
      while (n < 100 && guard.beforeCall(role) === "ok") n++;
      return n;
    };
    // Before any send returned, each is reserved at the estimate's cost per call.
    const fresh = new BudgetGuard({ budgetUsd: 1, maxCalls: null }, undefined, { estimate: { critic: 0.25 } });
    expect(admitted(fresh)).toBe(4);
    expect(fresh.tripped).toBe("--budget-usd 1 reached ($0.0000 spent, 4 send(s) in flight; another critic send may cost $0.2500, the dearest so far)");

    // An answer's cost replaces the estimate; an error's $0 does not.
    const priced = new BudgetGuard({ budgetUsd: 1, maxCalls: null }, undefined, { estimate: { critic: 0.5 } });
    expect(priced.beforeCall("critic")).toBe("ok");
    priced.onSpend(returned(0, { outcome: "error", error_class: "server_error", http_status: 500 }));
    expect(priced.beforeCall("critic")).toBe("ok");
    priced.onSpend(returned(0.125));
    expect(admitted(priced)).toBe(7);

    // Each role is reserved at its own price; a resume starts from the journal's dearest sends.
    const resumed = new BudgetGuard(
      { budgetUsd: 1, maxCalls: null },
      { calls: 3, cost_usd: 0.5, unknown_cost_calls: 0 },
      { dearest: { planner: 0.25, critic: 0.125 }, estimate: { planner: 0.01, critic: 0.01 } },
    );
    expect(resumed.beforeCall("planner")).toBe("ok");
    // $0.5 spent + a planner send at $0.25 + two critic sends at $0.125 = $1
    expect(admitted(resumed, "critic")).toBe(2);
  });

  it("starts from what earlier sessions spent", () => {
    const guard = new BudgetGuard({ budgetUsd: 1, maxCalls: null }, { calls: 7, cost_usd: 1, unknown_cost_calls: 0 });
    expect(guard.beforeCall("critic")).toBe("budget_exceeded");
    expect(guard.tripped).toMatch(/--budget-usd 1 reached \(\$1\.0000 spent\)/);
  });

  it("holds earlier calls of unknown cost (in flight at a crash) at the dearest send, never as free", () => {
    // $0.5 known, and 2 sends a crash left in flight: held at the dearest send of any role, $0.125 each.
    const sendCost = { dearest: { planner: 0.125, critic: 0.0625 } };
    const resumed = new BudgetGuard({ budgetUsd: 1, maxCalls: null }, { calls: 6, cost_usd: 0.5, unknown_cost_calls: 2 }, sendCost);
    let admitted = 0;
    while (admitted < 100 && resumed.beforeCall("critic") === "ok") admitted++;
    // $0.5 + $0.25 held leaves room for 4 critic sends at $0.0625 (counted as free, the two left room for 8).
    expect(admitted).toBe(4);
    expect(resumed.tripped).toContain("$0.2500 held for 2 earlier call(s) of unknown cost");
    const refused = new BudgetGuard({ budgetUsd: 0.75, maxCalls: null }, { calls: 6, cost_usd: 0.5, unknown_cost_calls: 2 }, sendCost);
    expect(refused.beforeCall("critic")).toBe("budget_exceeded");
    expect(refused.tripped).toBe("--budget-usd 0.75 reached ($0.5000 spent, $0.2500 held for 2 earlier call(s) of unknown cost)");
  });

  it("fails a USD budget closed at the first call of unknown cost, and says why", () => {
    for (const [line, why] of [
      [returned(null), /no usage/],
      [returned(null, { outcome: "error", error_class: "timeout", http_status: null }), /failed \(timeout\).*may have billed/],
      [returned(null, { usage: { input_tokens: 1, output_tokens: 1 } }), /no price/],
    ] as const) {
      const guard = new BudgetGuard({ budgetUsd: 100, maxCalls: null });
      expect(guard.beforeCall("critic", "corpus/a/0")).toBe("ok");
      guard.onSpend(line);
      expect(guard.tripped).toMatch(why);
      expect(guard.beforeCall("critic", "corpus/a/0")).toBe("budget_exceeded");
    }
    // without a USD limit an unknown cost stops nothing
    const free = new BudgetGuard({ budgetUsd: null, maxCalls: 5 });
    free.onSpend(returned(null));
    expect(free.beforeCall("critic")).toBe("ok");
  });

  it("a resume's refusal adds the journal's spend to the estimate", () => {
    const est = estimateSweep({ corpusTrials: 0, boundaryTrials: 4 }, config({ provider: "openai", model: "m" }), assumptions, () => 0.5);
    const spent = { calls: 10, input_tokens: 0, output_tokens: 0, cost_usd: 3, unknown_cost_calls: 0, cost_usd_is_lower_bound: false };
    expect(refuseByEstimate(est, { budgetUsd: null, maxCalls: 14 }, spent)).toBeNull();
    expect(refuseByEstimate(est, { budgetUsd: null, maxCalls: 13 }, spent)).toMatch(/estimated 14 LLM calls \(10 calls already spent/);
    expect(refuseByEstimate(est, { budgetUsd: 4.9, maxCalls: null }, spent)).toMatch(/estimated cost \$5\.0000 \(\$3\.0000 already spent/);
    // Two earlier calls of unknown cost count at the estimate's $0.5 a call: $3 + $1 + $2 = $6.
    const crashed = { ...spent, unknown_cost_calls: 2, cost_usd_is_lower_bound: true };
    expect(refuseByEstimate(est, { budgetUsd: 6, maxCalls: null }, crashed)).toBeNull();
    expect(refuseByEstimate(est, { budgetUsd: 5.9, maxCalls: null }, crashed)).toMatch(
      /^estimated cost \$6\.0000 \(at least \$3\.0000 \(2 call\(s\) of unknown cost\) already spent/,
    );
  });
});

describe("progress", () => {
  it("counts per suite, rate, ETA, errors and the slowest trial in flight", () => {
    const plan = planTrials(
      [
        { suite: "corpus", item_id: "a" },
        { suite: "boundary", item_id: "f" },
      ],
      2,
    );
    const spend = { calls: 7, cost_usd: 0.25, unknown_cost_calls: 0 };
    const p = new Progress(plan, plan.slice(1), 0, () => spend);
    const record = { ...engineOutcome([], [], []), status: "error" } as unknown as TrialRecord;
    p.onEvent({ type: "start", work: plan[1]!, at: 0 });
    p.onEvent({ type: "start", work: plan[2]!, at: 500 });
    p.onEvent({ type: "recorded", work: plan[1]!, record, at: 1000 });
    const s = p.snapshot(2000);
    expect(s.suites).toEqual([
      { suite: "corpus", total: 2, done: 2, errors: 1 },
      { suite: "boundary", total: 2, done: 0, errors: 0 },
    ]);
    expect(s.rate).toBe(0.5);
    expect(s.etaMs).toBe(4000);
    expect(s.slowest).toEqual([{ key: "boundary/f/0", ageMs: 1500 }]);
    expect(progressLine(s)).toBe("[2s] corpus 2/2 (1 err)  boundary 0/2  0.5/s  eta 4s  calls 7  spent $0.2500  slowest boundary/f/0 2s");
    // The spend is the journal's, read at each draw: a send in flight, or one that reported no usage, makes it a lower bound.
    spend.calls = 8;
    spend.unknown_cost_calls = 1;
    expect(progressLine(p.snapshot(2000))).toContain("  calls 8  spent at least $0.2500 (1 call(s) of unknown cost)  ");
    const measured = new Progress(
      plan,
      plan,
      0,
      () => NO_SPEND,
      () => ({ delay_p50_ms: 0.4, delay_p99_ms: 2.96, delay_max_ms: 8, busy_ms: 120, utilization: 0.06, cpu_ms: 100 }),
    );
    expect(progressLine(measured.snapshot(1000))).toBe("[1s] corpus 0/2  boundary 0/2  0.0/s  eta --  calls 0  spent $0.0000  loop p99 3.0 ms, busy 6%");
  });

  it("draws ink only on an interactive terminal; elsewhere plain lines, the last one at stop", () => {
    const tty = { isTTY: true } as NodeJS.WriteStream;
    expect(isInteractive(tty, {})).toBe(true);
    expect(isInteractive(tty, { CI: "1" })).toBe(false);
    expect(isInteractive(tty, { NO_COLOR: "1" })).toBe(false);
    expect(isInteractive({ isTTY: false } as NodeJS.WriteStream, {})).toBe(false);
    const plan = planTrials([{ suite: "corpus", item_id: "a" }], 1);
    let text = "";
    const out = { write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
    startPlainProgress(new Progress(plan, plan, 0, () => NO_SPEND), () => 1000, out, 60_000).stop();
    expect(text).toBe("[1s] corpus 0/1  0.0/s  eta --  calls 0  spent $0.0000\n");
  });
});
