import { unavailableAudit } from "../../../src/critic/normalize.ts";
import { ESCALATION_REASONS, type EscalationReason } from "../../../src/formats/enums.ts";
import { toGoal, type CorpusGoal, type Goal } from "../../../src/formats/goal.ts";
import type { Plan } from "../../../src/formats/plan.ts";
import type { CriticAudit, RoundRecord, TrialRecord } from "../../../src/formats/records.ts";
import { runGates } from "../../../src/gates/index.ts";
import { setAsideTranslated } from "../../../src/gates/translated.ts";
import { judgeRound } from "../../../src/loop/decide.ts";
import { structuralHash } from "../../../src/loop/structural.ts";
import { incompleteFinish } from "../../../src/providers/incomplete.ts";
import { parseStructured } from "../../../src/providers/structured-output.ts";
import { toCallRecord, type ImportedCallRecord } from "./calls.ts";
import { CLAIM_EXTRACTOR_VERSION } from "./claims.ts";
import { auditRecordedResponse } from "./critic.ts";
import { startMs, type MatchedRun } from "./logs.ts";
import { note, type ConversionNote } from "./notes.ts";
import { convertPlan, PLAN_CONVERSION_RULES } from "./plan.ts";
import { PredecessorCritiqueSchema, PredecessorPlanSchema, type LogEntry, type PredecessorPlan, type Trace } from "./schema.ts";

const CRITIC_CONVERSION_RULE = `critic: each finding's heuristic_family, severity, task_id, message and suggested_fix become a raw finding; its evidence comes from the message by ${CLAIM_EXTRACTOR_VERSION} (METHODOLOGY.md), and fieldtest's normalizer judges it on the plan the critic reviewed`;
const ROUND_RULE =
  "rounds: one per plan the predecessor accepted from its planner (its revision_count counts these rounds); the final round's plan is trace.json's (after the predecessor's own repairs); status, verdict and escalation reason are the recorded ones (an engine run no trace.json records: status error, verdict escalate, no reason, every decision revise), findings, evidence and blocker keys are fieldtest's rescoring (gate findings on synthetic tasks set aside)";

/** Why no trace.json records an engine run of the logs: the end of its trial's error. */
export const UNTRACED = {
  replaced: "a later run of the goal replaced it",
  no_trace: "the run left no trace",
} as const;

/** The conversion note on an imported trial: where it came from and what did not carry over. */
interface TrialConversion {
  /** The trace.json that records the engine run (null: none does) and its logs. */
  source: { trace: string | null; planner_log: string | null; critic_log: string | null };
  rules: string[];
  notes: ConversionNote[];
  /** Calls of its logs that no trial took (a shared log whose runs do not split into its variants'): not imported. */
  unmatched_log_calls: number;
}

export interface ImportedTrialRecord extends TrialRecord {
  calls: ImportedCallRecord[];
  conversion: TrialConversion;
}

type TrialSource = {
  goal: CorpusGoal;
  /** What the goal and assertion conversion could not carry over. */
  goal_notes: readonly ConversionNote[];
  item_hash: string;
  trial: number;
  run: MatchedRun;
  /** Calls of its logs that no trial took (counted on the trial of the trace). */
  unplaced: number;
  source: TrialConversion["source"];
  /** When no call records a time: the trace file's modification time. */
  fallback_time: string;
} & (
  | { trace: Trace }
  /** No trace.json records this engine run: its outcome was never recorded. */
  | { trace: null; untraced: keyof typeof UNTRACED }
);

interface PlacedCall {
  entry: LogEntry;
  record: ImportedCallRecord;
}

/** What the trial's sources lack or hold more of: the goal's notes, a missing log, a log of several engine runs. */
function sourceNotes(src: TrialSource): ConversionNote[] {
  const notes: ConversionNote[] = [...src.goal_notes];
  for (const role of ["planner", "critic"] as const)
    if (src.source[`${role}_log`] === null)
      notes.push(
        note("not_recorded", `${role} log`, `no log file beside ${src.trace === null ? "the other role's log" : "trace.json"}: no calls of this role`),
      );
  const position = src.run.position;
  if (position !== null)
    notes.push(
      note(
        "derived",
        "llm-logs",
        `the logs hold ${position.of} engine runs of this goal; ${src.trace === null ? `this is run ${position.index + 1}, which no trace.json records` : `trace.json records run ${position.index + 1} (${position.by})`}`,
      ),
    );
  return notes;
}

/**
 * Each logged call placed in its round (the planner's accepted answers delimit the rounds) with its
 * attempt number; the accepted plans in order, and per round its last critic call (its audit).
 */
function placeCalls(src: TrialSource, notes: ConversionNote[]): { placed: PlacedCall[]; plans: PredecessorPlan[]; audits: Map<number, LogEntry> } {
  const plans: PredecessorPlan[] = [];
  const audits = new Map<number, LogEntry>();
  const attempts = new Map<string, number>();
  const placed: PlacedCall[] = src.run.calls.map((entry) => {
    const round = entry.role === "planner" ? plans.length : Math.max(plans.length - 1, 0);
    const slot = `${entry.role}:${round}`;
    const attempt = attempts.get(slot) ?? 0;
    attempts.set(slot, attempt + 1);
    let accepted: boolean;
    if (entry.role === "planner") {
      const plan = acceptedPlan(entry);
      if (plan !== null) plans.push(restamp(plan, plans.at(-1), src.goal.id));
      accepted = plan !== null;
    } else {
      accepted = acceptedCritique(entry);
      if (plans.length === 0) notes.push(note("inconsistent", "critic log", `critic call at ${entry.timestamp} before any accepted plan: counted in round 0`));
      const earlier = audits.get(round);
      // A retry follows an answer that was not accepted; a second accepted answer in one round means the order is off.
      if (earlier !== undefined && acceptedCritique(earlier))
        notes.push(
          note(
            "inconsistent",
            `rounds[${round}].critic`,
            `two accepted critic answers fall in round ${round} (logged at ${earlier.timestamp} and ${entry.timestamp}) with no accepted plan between them: the later one is the round's audit, both stay in calls`,
          ),
        );
      audits.set(round, entry);
    }
    return { entry, record: toCallRecord(entry, { round, attempt, trial: src.trial, outcome: accepted ? "ok" : "invalid_output" }) };
  });
  return { placed, plans, audits };
}

/** The trace's final plan, when valid, is the last round's plan (or the only round when no plan was logged). */
function settleFinalPlan(trace: Trace, plans: PredecessorPlan[], notes: ConversionNote[]): void {
  const finalPlan = PredecessorPlanSchema.safeParse(trace.plan);
  if (trace.plan !== null && trace.plan !== undefined && !finalPlan.success)
    notes.push(note("inconsistent", "trace.plan", `not a valid plan (${finalPlan.error.issues[0]!.message}): the last logged plan stands`));
  if (!finalPlan.success) return;
  if (plans.length === 0) {
    notes.push(note("not_recorded", "planner log", "no accepted plan in the logs: the trace's final plan is the only round"));
    plans.push(finalPlan.data);
    return;
  }
  const logged = structuralHash(convertPlan(plans.at(-1)!).plan);
  if (logged !== structuralHash(convertPlan(finalPlan.data).plan))
    notes.push(note("derived", "trace.plan", "differs in structure from the last logged plan (the predecessor's repairs): the final round uses the trace's"));
  plans[plans.length - 1] = finalPlan.data;
}

/** Each plan as a round: converted, rescored by the gates and (its audit) by the normalizer, decided as the trace ended. */
function scoreRounds(
  goal: Goal,
  plans: readonly PredecessorPlan[],
  audits: ReadonlyMap<number, LogEntry>,
  ending: { status: Trace["result"]["status"]; reason: RoundRecord["reason"] },
  notes: ConversionNote[],
): RoundRecord[] {
  return plans.map((p, index): RoundRecord => {
    const converted = convertPlan(p);
    notes.push(...converted.notes.map((n) => ({ ...n, subject: `rounds[${index}].${n.subject}` })));
    const { counted, setAside } = setAsideTranslated(runGates(goal, converted.plan), converted.inventedTaskIds);
    const entry = audits.get(index);
    const critic = entry === undefined ? null : audit(goal, converted.plan, entry, converted.originalTaskIds);
    const judged = judgeRound({ tolerance: goal.risk_tolerance, gateFindings: counted, audit: critic, carried: [] });
    const last = index === plans.length - 1;
    const decision = !last || ending.status === "error" ? "revise" : ending.status === "approved" ? "approve" : "escalate";
    return {
      index,
      plan: converted.plan,
      structural_hash: structuralHash(converted.plan),
      gate_findings: counted,
      repairs: [],
      critic,
      carried_forward: [],
      blocker_keys: judged.blockerKeys,
      decision,
      reason: decision === "escalate" ? ending.reason : null,
      translated: { tasks: converted.inventedTaskIds, gate_findings: setAside },
    };
  });
}

/** How the engine run ended, as its trace recorded it; a run no trace records has no recorded outcome: an error, failing closed. */
function recordedOutcome(
  src: TrialSource,
  notes: ConversionNote[],
): { status: Trace["result"]["status"]; reason: EscalationReason | null; error: string | null } {
  if (src.trace === null) {
    notes.push(
      note(
        "not_recorded",
        "trace.json",
        `no trace.json records this engine run (${UNTRACED[src.untraced]}): its outcome is unknown, so the trial is status error, verdict escalate (fail closed), with no escalation reason; its rounds are rebuilt from its logs and rescored, every decision revise`,
      ),
    );
    return { status: "error", reason: null, error: `outcome not recorded: no trace.json records this engine run; ${UNTRACED[src.untraced]}` };
  }
  const { status, reason_code } = src.trace.result;
  return {
    status,
    reason: escalationReason(src.trace, notes),
    error: status === "error" ? (src.trace.error ?? `the predecessor recorded status error (${reason_code ?? "no reason code"})`) : null,
  };
}

/** When the trial ran: the span of its logged calls, else the trace file's modification time. */
function timeSpan(placed: readonly PlacedCall[], fallback: string, notes: ConversionNote[]): { started: string; finished: string } {
  if (placed.length === 0) {
    notes.push(note("not_recorded", "started_at/finished_at", "no logged call: the trace file's modification time"));
    return { started: fallback, finished: fallback };
  }
  return {
    started: new Date(Math.min(...placed.map((p) => startMs(p.entry)))).toISOString(),
    finished: new Date(Math.max(...placed.map((p) => Date.parse(p.entry.timestamp)))).toISOString(),
  };
}

/**
 * One recorded engine run as a trial record (docs/design.md §8). Pure. The planner's accepted answers
 * delimit the rounds; each round's last critic call is its audit; the gates and the normalizer
 * rescore every recorded plan and critic answer.
 */
export function buildTrial(src: TrialSource): ImportedTrialRecord {
  const notes = sourceNotes(src);
  const goal = toGoal(src.goal);
  const { placed, plans, audits } = placeCalls(src, notes);
  if (src.trace !== null) settleFinalPlan(src.trace, plans, notes);
  const { status, reason, error } = recordedOutcome(src, notes);
  const rounds = scoreRounds(goal, plans, audits, { status, reason }, notes);
  const calls = placed.map((p) => p.record);
  if (src.trace !== null) checkCounts(src.trace, rounds, calls, notes);
  const { started, finished } = timeSpan(placed, src.fallback_time, notes);
  const duration = src.trace?.duration_seconds ?? null;
  if (duration === null)
    notes.push(note("not_recorded", "latency_ms", `${src.trace === null ? "no trace.json" : "trace.json has no duration"}: the span of the logged calls`));
  return {
    schema_version: 1,
    suite: "imported",
    item_id: src.goal.id,
    trial: src.trial,
    status,
    escalation_reason: status === "escalated" ? reason : null,
    escalation_reasons: status === "escalated" && reason !== null ? [reason] : [],
    error,
    item_hash: src.item_hash,
    rounds,
    critic_verdict: null,
    verdict: status === "approved" ? "approve" : "escalate",
    calls,
    cost_usd: null,
    latency_ms: duration === null ? Date.parse(finished) - Date.parse(started) : Math.round(duration * 1000),
    started_at: started,
    finished_at: finished,
    conversion: {
      source: src.source,
      rules: [...PLAN_CONVERSION_RULES, CRITIC_CONVERSION_RULE, ROUND_RULE],
      notes,
      unmatched_log_calls: src.unplaced,
    },
  };
}

const answerText = (entry: LogEntry) => (entry.error === null ? entry.response_content : null);

/**
 * The plan a planner call returned, when the predecessor's parser accepted it (an answer the API
 * ended early is rejected, as a live run rejects it, whatever the predecessor made of it).
 */
export function acceptedPlan(entry: LogEntry): PredecessorPlan | null {
  const text = answerText(entry);
  if (text === null) return null;
  const parsed = parseStructured(text, PredecessorPlanSchema, incompleteFinish(entry.finish_reason));
  return parsed.ok ? parsed.value : null;
}

function acceptedCritique(entry: LogEntry): boolean {
  const text = answerText(entry);
  return text !== null && parseStructured(text, PredecessorCritiqueSchema, incompleteFinish(entry.finish_reason)).ok;
}

/** The predecessor stamped every revision `plan-<goal>-r<n>`, version parent + 1, parent_version the parent's id (§4.1). */
function restamp(plan: PredecessorPlan, parent: PredecessorPlan | undefined, goalId: string): PredecessorPlan {
  if (parent === undefined) return plan;
  const version = parent.version + 1;
  return { ...plan, id: `plan-${goalId}-r${version}`, version, parent_version: parent.id };
}

function audit(goal: Goal, plan: Plan, entry: LogEntry, taskIds: readonly string[]): CriticAudit {
  if (entry.error !== null) return unavailableAudit("provider_error", entry.response_content);
  if (entry.response_content === null || incompleteFinish(entry.finish_reason) !== null) return unavailableAudit("invalid_output", entry.response_content);
  return auditRecordedResponse(goal, plan, entry.response_content, taskIds);
}

function escalationReason(trace: Trace, notes: ConversionNote[]): EscalationReason | null {
  const code = trace.result.reason_code;
  if (trace.result.status !== "escalated") return null;
  if (code !== null && (ESCALATION_REASONS as readonly string[]).includes(code)) return code as EscalationReason;
  notes.push(
    note("not_convertible", "trace.result.reason_code", `${code === null ? "no reason code" : `"${code}"`}: no fieldtest escalation reason, recorded as null`),
  );
  return null;
}

/** The trace's own counts against the reconstruction: a disagreement is named, never smoothed over. */
function checkCounts(trace: Trace, rounds: RoundRecord[], calls: readonly ImportedCallRecord[], notes: ConversionNote[]): void {
  const { revision_count, llm_calls } = trace.result;
  const planner = calls.filter((c) => c.role === "planner");
  if (revision_count !== null && revision_count !== rounds.length)
    notes.push(
      note(
        "inconsistent",
        "trace.result.revision_count",
        `${revision_count} rounds recorded, ${rounds.length} reconstructed: the planner log holds ${planner.length} call(s) of this run, ${planner.filter((c) => c.outcome === "ok").length} with an accepted plan`,
      ),
    );
  const audited = rounds.filter((r) => r.critic !== null).map((r) => r.index);
  if (llm_calls !== null && llm_calls !== audited.length) {
    const critic = calls.filter((c) => c.role === "critic");
    const perRound = [...new Set(critic.map((c) => c.round))].map((r) => `round ${r}: ${critic.filter((c) => c.round === r).length}`);
    notes.push(
      note(
        "inconsistent",
        "trace.result.llm_calls",
        `${llm_calls} critic invocations recorded, ${audited.length} round(s) with a logged critic call${audited.length ? ` (${audited.join(", ")})` : ""}: the critic log holds ${critic.length} call(s) of this run${perRound.length ? ` (${perRound.join("; ")})` : ""}`,
      ),
    );
  }
}
