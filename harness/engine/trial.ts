import { ESCALATION_REASONS, type EscalationReason } from "../../src/formats/enums.ts";
import type { Goal } from "../../src/formats/goal.ts";
import { type CallRecord, type EngineOutcome, type EngineOutcomeKind, type EngineTrial, type Role, type RoundRecord } from "../../src/formats/records.ts";
import { runGates } from "../../src/gates/index.ts";
import { setAsideTranslated } from "../../src/gates/translated.ts";
import { judgeRound } from "../../src/loop/decide.ts";
import { structuralHash } from "../../src/loop/structural.ts";
import type { EngineRun } from "./result.ts";

/** How the engine's process (or its worker's turn) ended. */
export type EngineEnding =
  | { kind: "exited"; code: number | null; signal: string | null; ok: boolean }
  /** A worker answered the trial's line (and runs on). */
  | { kind: "answered" }
  | { kind: "timeout"; afterMs: number }
  /** The process could not be started, or a worker died or broke the protocol mid-trial. */
  | { kind: "failed"; message: string };

/** What one trial of an external engine left: the proxy's records, the process's end, the result as read. */
export interface TrialEvidence {
  goal: Goal;
  /** Every call the engine made through the proxy, in the proxy's order. */
  calls: readonly CallRecord[];
  /** Requests the proxy refused before any model saw them. */
  refusedRequests: number;
  ending: EngineEnding;
  stderrTail: string | null;
  /** The result as read; a string says why it could not be; null when the process gave none to read. */
  result: EngineRun | string | null;
}

/**
 * Calls the proxy answered with an error that no later identical request of the role recovered:
 * an engine that resends a failed request and gets its answer has lost nothing.
 */
function unrecoveredFailures(calls: readonly CallRecord[]): CallRecord[] {
  return calls.filter(
    (c, i) =>
      c.outcome === "error" &&
      !calls.slice(i + 1).some((later) => later.role === c.role && later.request_sha256 === c.request_sha256 && later.outcome === "ok"),
  );
}

function describeEnding(e: EngineEnding): string {
  if (e.kind === "timeout") return `no result within ${Math.round(e.afterMs / 1000)} s; the engine was stopped`;
  if (e.kind === "failed") return e.message;
  if (e.kind === "answered") return "it answered";
  return e.signal ? `ended by ${e.signal}` : `exited with code ${e.code}`;
}

/**
 * Why a trial has no verdict, or `ok`: decided by what the proxy and the process showed, never by
 * what the engine says of itself. A replay that cannot answer comes first (the trial cannot be the
 * recorded one), then a provider that never answered (the infrastructure, not the engine), then
 * the engine's own failures.
 */
function outcomeOf(ev: TrialEvidence, failed: readonly CallRecord[]): { kind: EngineOutcomeKind; detail: string | null } {
  const miss = failed.find((c) => c.error_class === "replay_miss");
  if (miss) return { kind: "replay_miss", detail: `the recorded run has no ${miss.role} answer for request ${miss.request_sha256.slice(0, 12)}` };
  const provider = failed.find((c) => c.error_class !== "budget_exceeded");
  if (provider)
    return {
      kind: "provider_error",
      detail: `a ${provider.role} call failed after ${provider.transport_attempts.length} attempt(s): ${provider.error_class}${provider.http_status ? ` (HTTP ${provider.http_status})` : ""}`,
    };
  if (ev.ending.kind === "timeout") return { kind: "engine_timeout", detail: describeEnding(ev.ending) };
  if (ev.ending.kind === "failed" || (ev.ending.kind === "exited" && !ev.ending.ok)) return { kind: "engine_error", detail: describeEnding(ev.ending) };
  if (ev.result === null) return { kind: "engine_error", detail: "it wrote no result" };
  if (typeof ev.result === "string") return { kind: "engine_error", detail: `its result cannot be read: ${ev.result}` };
  if (ev.result.status === "error") return { kind: "engine_error", detail: `it reported an error${ev.result.error ? `: ${ev.result.error}` : ""}` };
  return { kind: "ok", detail: null };
}

/** The engine's rounds judged by fieldtest: its gates on every plan (not on what a translator invented), the critic's answer as normalised. */
function judgedRounds(goal: Goal, run: EngineRun | null, verdictKnown: boolean): RoundRecord[] {
  const rounds = run?.rounds ?? [];
  return rounds.map((r, index): RoundRecord => {
    const { counted, setAside } = setAsideTranslated(runGates(goal, r.plan), new Set(r.translatedTasks));
    const judged = judgeRound({ tolerance: goal.risk_tolerance, gateFindings: counted, audit: r.critic, carried: [] });
    const last = index === rounds.length - 1;
    const decision = !last || !verdictKnown ? "revise" : run!.status === "approved" ? "approve" : "escalate";
    return {
      index,
      plan: r.plan,
      structural_hash: structuralHash(r.plan),
      gate_findings: counted,
      repairs: [],
      critic: r.critic,
      carried_forward: [],
      blocker_keys: judged.blockerKeys,
      decision,
      reason: decision === "escalate" ? escalationReason(run!.reasons) : null,
      ...(r.translatedTasks.length > 0 ? { translated: { tasks: [...r.translatedTasks], gate_findings: setAside } } : {}),
    };
  });
}

/** The first of the engine's reasons that is one of fieldtest's (docs/design.md §6); its own words stay in `engine.reported.reasons`. */
function escalationReason(reasons: readonly string[]): EscalationReason | null {
  return (reasons.find((r) => (ESCALATION_REASONS as readonly string[]).includes(r)) as EscalationReason | undefined) ?? null;
}

/**
 * One trial of an external engine as a trial record's outcome. Fail closed: a trial whose engine
 * failed, timed out, wrote nothing readable, or made a call that no model answered has no verdict
 * (status `error`, its cause in `engine.outcome`), and what the engine said stays beside it, so
 * that an approval given while a critic call had failed is counted as a fail-open approval
 * (src/metrics/availability.ts). Pure.
 */
export function engineTrialOutcome(ev: TrialEvidence): EngineOutcome {
  const failed = unrecoveredFailures(ev.calls);
  const { kind, detail } = outcomeOf(ev, failed);
  const run = ev.result !== null && typeof ev.result !== "string" ? ev.result : null;
  const ok = kind === "ok";
  const rounds = judgedRounds(ev.goal, run, ok);
  const failedBy = (role: Role) => failed.filter((c) => c.role === role).length;
  const engine: EngineTrial = {
    outcome: kind,
    reported: {
      status: run?.status ?? null,
      reasons: run?.reasons ?? [],
      error: run?.error ?? null,
      findings: run?.rounds.map((r) => r.engineFindings) ?? [],
    },
    exit_code: ev.ending.kind === "exited" ? ev.ending.code : null,
    signal: ev.ending.kind === "exited" ? ev.ending.signal : null,
    stderr_tail: ev.stderrTail,
    failed_calls: { planner: failedBy("planner"), critic: failedBy("critic") },
    refused_requests: ev.refusedRequests,
  };
  const status = ok ? run!.status : "error";
  const reason = status === "escalated" ? escalationReason(run!.reasons) : null;
  return {
    status,
    escalation_reason: reason,
    escalation_reasons: reason === null ? [] : [reason],
    error: ok ? null : `${kind}: ${detail}`,
    rounds,
    critic_verdict: null,
    verdict: status === "approved" ? "approve" : "escalate",
    calls: [...ev.calls],
    engine,
  };
}
