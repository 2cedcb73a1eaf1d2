import { describe, expect, it } from "vitest";
import type { EngineRun } from "../../harness/engine/result.ts";
import { engineTrialOutcome, type EngineEnding, type TrialEvidence } from "../../harness/engine/trial.ts";
import type { CallRecord } from "../../src/formats/records.ts";
import { approvedGateBlocked, failOpenApproval } from "../../src/metrics/availability.ts";
import { call } from "../metrics/builders.ts";
import { hard, makeGoal, makePlan, mutate, read, verify } from "../helpers/plans.ts";

const goal = makeGoal();
/** A sound plan: every gate passes. */
const sound = makePlan(
  [read("look"), mutate("change", { produces: ["out"] }), verify("check", "change", "mutation_output", ["out"])],
  [hard("look", "change"), hard("change", "check")],
);
/** A high-blast change without verification or rollback: gates block it. */
const risky = makePlan([mutate("change", { risk: "high" })]);

const exited: EngineEnding = { kind: "exited", code: 0, signal: null, ok: true };
const approved = (plan = sound): EngineRun => ({
  status: "approved",
  reasons: [],
  error: null,
  rounds: [{ plan, translatedTasks: [], engineFindings: [], critic: null }],
});
const rpc = (role: "planner" | "critic", outcome: CallRecord["outcome"], key = `${role}-request`, errorClass: string | null = null): CallRecord => ({
  ...call({ role, outcome }),
  request_sha256: key,
  error_class: errorClass,
});
const evidence = (over: Partial<TrialEvidence>): TrialEvidence => ({
  goal,
  calls: [rpc("planner", "ok"), rpc("critic", "ok")],
  refusedRequests: 0,
  ending: exited,
  stderrTail: null,
  result: approved(),
  ...over,
});

const failOpen = failOpenApproval;
const gateBlocked = approvedGateBlocked;
const asTrial = (o: ReturnType<typeof engineTrialOutcome>) => ({
  ...o,
  schema_version: 1 as const,
  suite: "corpus" as const,
  item_id: "g",
  trial: 0,
  item_hash: "h",
  cost_usd: 0,
  latency_ms: 1,
  started_at: "",
  finished_at: "",
});

describe("an external engine's trial, judged by what the proxy and the process showed", () => {
  it("keeps the engine's verdict when it ran whole, and judges its plans with fieldtest's gates", () => {
    const ok = engineTrialOutcome(evidence({}));
    expect(ok).toMatchObject({ status: "approved", verdict: "approve", error: null, engine: { outcome: "ok", failed_calls: { planner: 0, critic: 0 } } });
    expect(ok.rounds[0]!.gate_findings).toEqual([]);
    const disagree = engineTrialOutcome(evidence({ result: approved(risky) }));
    expect(disagree.status).toBe("approved");
    expect(disagree.rounds[0]!.gate_findings.map((f) => f.code)).toEqual(expect.arrayContaining(["verification_missing", "rollback_missing"]));
    expect(gateBlocked(asTrial(disagree))).toBe(true);
    expect(gateBlocked(asTrial(ok))).toBe(false);
  });

  it("gives no verdict when the engine failed, timed out, wrote nothing readable or said error", () => {
    const cases: [Partial<TrialEvidence>, string][] = [
      [{ ending: { kind: "exited", code: 2, signal: null, ok: false } }, "engine_error: exited with code 2"],
      [{ ending: { kind: "exited", code: null, signal: "SIGSEGV", ok: false } }, "engine_error: ended by SIGSEGV"],
      [{ ending: { kind: "timeout", afterMs: 30_000 } }, "engine_timeout: no result within 30 s"],
      [{ ending: { kind: "failed", message: "it could not be started: ENOENT" } }, "engine_error: it could not be started"],
      [{ result: null }, "engine_error: it wrote no result"],
      [{ result: "status: expected one of approved|escalated|error" }, "engine_error: its result cannot be read: status"],
      [{ result: { ...approved(), status: "error", error: "boom" } }, "engine_error: it reported an error: boom"],
    ];
    for (const [over, error] of cases) {
      const o = engineTrialOutcome(evidence(over));
      expect(o.status).toBe("error");
      expect(o.verdict).toBe("escalate");
      expect(o.error).toContain(error);
    }
  });

  it("calls a provider that never answered the trial's cause, before whatever the engine did about it", () => {
    const o = engineTrialOutcome(
      evidence({ calls: [rpc("planner", "ok"), rpc("critic", "error", "c", "server_error")], ending: { kind: "exited", code: 1, signal: null, ok: false } }),
    );
    expect(o.engine!.outcome).toBe("provider_error");
    expect(o.error).toMatch(/^provider_error: a critic call failed after 1 attempt\(s\): server_error/);
    const miss = engineTrialOutcome(evidence({ calls: [rpc("planner", "error", "p", "replay_miss"), rpc("critic", "error", "c", "server_error")] }));
    expect(miss.engine!.outcome).toBe("replay_miss");
  });

  it("counts an approval after a failed critic call as fail-open, and a failure the engine recovered by resending as none", () => {
    const openly = engineTrialOutcome(evidence({ calls: [rpc("planner", "ok"), rpc("critic", "error", "c", "server_error")] }));
    expect(openly.status).toBe("error");
    expect(openly.engine!.reported.status).toBe("approved");
    expect(failOpen(asTrial(openly))).toBe(true);
    const recovered = engineTrialOutcome(evidence({ calls: [rpc("planner", "ok"), rpc("critic", "error", "c", "server_error"), rpc("critic", "ok", "c")] }));
    expect(recovered).toMatchObject({ status: "approved", engine: { outcome: "ok", failed_calls: { critic: 0 } } });
    expect(failOpen(asTrial(recovered))).toBe(false);
    // A different request that succeeded later does not recover the failed one.
    const other = engineTrialOutcome(evidence({ calls: [rpc("critic", "error", "c1", "server_error"), rpc("critic", "ok", "c2")] }));
    expect(other.engine!.failed_calls.critic).toBe(1);
    // Escalating when the critic failed is failing closed.
    const closed = engineTrialOutcome(
      evidence({ calls: [rpc("critic", "error", "c", "timeout")], result: { ...approved(), status: "escalated", reasons: ["critic_unavailable"] } }),
    );
    expect(failOpen(asTrial(closed))).toBe(false);
  });

  it("maps the engine's reasons onto fieldtest's where they are the same words, and keeps its own", () => {
    const o = engineTrialOutcome(evidence({ result: { ...approved(), status: "escalated", reasons: ["approval_threshold_not_met", "revision_cap_reached"] } }));
    expect(o.escalation_reason).toBe("revision_cap_reached");
    expect(o.engine!.reported.reasons).toEqual(["approval_threshold_not_met", "revision_cap_reached"]);
    const own = engineTrialOutcome(evidence({ result: { ...approved(), status: "escalated", reasons: ["policy_violation"] } }));
    expect(own.escalation_reason).toBeNull();
    expect(own.rounds.at(-1)!.decision).toBe("escalate");
  });

  it("sets aside a gate finding that rests only on a task the translator invented", () => {
    const translated = makePlan([
      mutate("change", { risk: "high", produces: ["out"], rollback: { trigger: "change.verify", action: "undo", requires: [], restores: [] } }),
      verify("change.verify", "change", "mutation_output"),
    ]);
    const o = engineTrialOutcome(
      evidence({ result: { ...approved(), rounds: [{ plan: translated, translatedTasks: ["change.verify"], engineFindings: [], critic: null }] } }),
    );
    const round = o.rounds[0]!;
    expect(round.translated!.tasks).toEqual(["change.verify"]);
    expect(round.translated!.gate_findings.map((f) => f.code)).toEqual(["verification_ignores_output"]);
    expect(round.gate_findings.map((f) => f.task_id)).not.toContain("change.verify");
    expect(round.blocker_keys).toEqual(round.gate_findings.map((f) => f.key));
  });
});
