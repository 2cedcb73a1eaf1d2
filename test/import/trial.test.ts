import { describe, expect, it } from "vitest";
import { convertGoal } from "../../harness/import/planner-critic/goal.ts";
import { LogEntrySchema, PredecessorGoalSchema, TraceSchema } from "../../harness/import/planner-critic/schema.ts";
import { buildTrial } from "../../harness/import/planner-critic/trial.ts";
import { HAND_GOAL, logEntry, predecessorPlan, predecessorTask, trace } from "./fixtures.ts";

const converted = convertGoal(PredecessorGoalSchema.parse(HAND_GOAL), null, { domain: "database" });
if (typeof converted === "string") throw new Error(converted);
const goal = converted.goal;

const draft = predecessorPlan([predecessorTask("migrate_db")], []);
const revised = predecessorPlan([predecessorTask("take_backup"), predecessorTask("migrate_db")], [["take_backup", "migrate_db"]]);
const at = (s: number) => `2026-08-20T10:00:${String(s).padStart(2, "0")}Z`;
const entry = (call: number, role: "planner" | "critic", s: number, response: unknown, error: string | null = null) =>
  LogEntrySchema.parse({ ...logEntry({ call, role, timestamp: at(s), duration_seconds: 1, response }), error });

function build(calls: ReturnType<typeof entry>[], result: { status: string; reason_code: string | null; revision_count: number; llm_calls: number }) {
  return buildTrial({
    goal,
    goal_notes: [],
    item_hash: "h",
    trial: 0,
    // The trace holds the final plan as the predecessor restamped it.
    trace: TraceSchema.parse(trace({ ...revised, id: "plan-hand-01-r2", version: 2, parent_version: "hand-01-plan" }, result)),
    run: { calls, position: null },
    unplaced: 0,
    source: { trace: "trace.json", planner_log: "p.jsonl", critic_log: "c.jsonl" },
    fallback_time: at(0),
  });
}

describe("rounds rebuilt from the logged calls", () => {
  // Planner retry after invalid JSON; a round without critic (the predecessor's gates blocked); a critic retry.
  const calls = [
    entry(1, "planner", 2, "{not json"),
    entry(2, "planner", 4, draft),
    entry(3, "planner", 6, revised),
    entry(1, "critic", 8, "no findings here"),
    entry(2, "critic", 10, {
      findings: [{ heuristic_family: "weak_rollback", severity: "Blocker", task_id: "migrate_db", message: "migrate_db has no rollback." }],
    }),
  ];

  it("places retries in their round, with attempt indices and the predecessor parser's outcome", () => {
    const trial = build(calls, { status: "escalated", reason_code: "revision_cap_reached", revision_count: 2, llm_calls: 1 });
    expect(trial.calls.map((c) => [c.role, c.round, c.attempt, c.outcome])).toEqual([
      ["planner", 0, 0, "invalid_output"],
      ["planner", 0, 1, "ok"],
      ["planner", 1, 0, "ok"],
      ["critic", 1, 0, "invalid_output"],
      ["critic", 1, 1, "ok"],
    ]);
    expect(trial.rounds.map((r) => [r.plan.id, r.plan.version, r.plan.parent_id, r.critic === null, r.decision])).toEqual([
      ["hand-01-plan", 1, null, true, "revise"],
      ["plan-hand-01-r2", 2, "hand-01-plan", false, "escalate"],
    ]);
    expect(trial.conversion.notes.filter((n) => n.kind === "inconsistent")).toEqual([]);
  });

  it("judges the round's last critic answer with fieldtest's rules, keeping the raw text", () => {
    const trial = build(calls, { status: "escalated", reason_code: "revision_cap_reached", revision_count: 2, llm_calls: 1 });
    const audit = trial.rounds[1]!.critic!;
    expect(audit.raw_text).toBe(calls[4]!.response_content);
    expect(audit.findings.map((f) => [f.severity, f.normalization, f.evidence?.claim, f.evidence_status])).toEqual([
      ["blocker", ["case_folded"], "missing_rollback", "supported"],
    ]);
    expect(trial.rounds[1]!.blocker_keys).toContain(audit.findings[0]!.key);
  });

  it("names every disagreement between the trace and the logs instead of smoothing it over", () => {
    const trial = build(calls, { status: "escalated", reason_code: "run_timeout", revision_count: 3, llm_calls: 2 });
    expect(trial.escalation_reason).toBeNull();
    expect(trial.conversion.notes.map((n) => [n.kind, n.subject])).toEqual(
      expect.arrayContaining([
        ["not_convertible", "trace.result.reason_code"],
        ["inconsistent", "trace.result.revision_count"],
        ["inconsistent", "trace.result.llm_calls"],
      ]),
    );
  });

  it("makes a failed critic call an unavailable audit, never a clean one", () => {
    const trial = build([entry(1, "planner", 2, revised), entry(1, "critic", 4, null, "ProviderTimeout: read timed out")], {
      status: "approved",
      reason_code: "approved",
      revision_count: 1,
      llm_calls: 1,
    });
    expect(trial.calls[1]).toMatchObject({ outcome: "error", error_class: "ProviderTimeout" });
    expect(trial.rounds[0]!.critic).toMatchObject({ outcome: "critic_unavailable", reason: "provider_error" });
    expect(trial.status).toBe("approved");
  });

  it("makes a critic answer the API ended at its output limit an unavailable audit, though it parses as a clean one", () => {
    const cut = LogEntrySchema.parse({ ...entry(1, "critic", 4, { findings: [] }), finish_reason: "length" });
    const trial = build([entry(1, "planner", 2, revised), cut], { status: "approved", reason_code: "approved", revision_count: 1, llm_calls: 2 });
    expect(trial.calls[1]).toMatchObject({
      outcome: "invalid_output",
      error_class: "incomplete",
      validation_error: "the answer ended before it was complete (finish_reason length: the output limit)",
      transport_attempts: [{ outcome: "ok", error_class: null }],
    });
    expect(trial.rounds[0]!.critic).toMatchObject({ outcome: "critic_unavailable", reason: "invalid_output", raw_text: '{"findings":[]}' });
    // The same answer, finished, is a clean audit.
    const finished = build([entry(1, "planner", 2, revised), entry(1, "critic", 4, { findings: [] })], {
      status: "approved",
      reason_code: "approved",
      revision_count: 1,
      llm_calls: 2,
    });
    expect(finished.rounds[0]!.critic).toMatchObject({ outcome: "ok" });
  });
});
