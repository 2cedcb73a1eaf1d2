import { canonicalJson } from "../canonical.ts";
import type { NormalizedFinding } from "../formats/findings.ts";
import type { CallRecord, TrialRecord } from "../formats/records.ts";

/**
 * Facts read off one trial record, shared by the metrics. Boundary trials are critic-only and are
 * judged by critic_verdict; corpus (and imported) trials are engine trials judged by status.
 */

export type VerdictScheme = "critic" | "engine";

/** Counted verdict categories, in tie-break order for the modal verdict (the cautious one first). */
export const VERDICT_CATEGORIES: Record<VerdictScheme, readonly string[]> = {
  critic: ["block", "pass"],
  engine: ["escalated", "approved"],
};

/** Suites of critic-only trials on frozen plans (the boundary fixtures, the security oracle, the injection traps). */
const CRITIC_ONLY_SUITES: ReadonlySet<string> = new Set(["boundary", "security", "injection"]);

export function verdictScheme(trial: TrialRecord): VerdictScheme {
  return CRITIC_ONLY_SUITES.has(trial.suite) ? "critic" : "engine";
}

/** Whether any round's critic audit was unavailable (the engine then escalates, failing closed). */
export function criticWasUnavailable(trial: Pick<TrialRecord, "rounds">): boolean {
  return trial.rounds.some((r) => r.critic?.outcome === "critic_unavailable");
}

/** The last rejected answer's reason, as `<role>: <reason>` (the output limit, a schema error, not JSON ...); null when none was rejected. */
function lastRejectedAnswer(calls: readonly CallRecord[]): string | null {
  for (let i = calls.length - 1; i >= 0; i--) {
    const c = calls[i]!;
    if (c.outcome === "invalid_output" && c.validation_error !== null) return `${c.role}: ${c.validation_error}`;
  }
  return null;
}

/**
 * Why a trial's planner or critic was unavailable when the model answered, badly, every time: its
 * last rejected answer. Null for a trial whose roles were available, or whose provider never
 * answered (status `error`, which carries its own error).
 */
export function whyUnavailable(trial: Pick<TrialRecord, "status" | "rounds" | "escalation_reasons" | "calls">): string | null {
  if (trial.status === "error" || !(plannerWasUnavailable(trial) || criticWasUnavailable(trial))) return null;
  return lastRejectedAnswer(trial.calls);
}

/** Whether the planner gave no valid plan after its retries (the engine then escalates, failing closed). */
export function plannerWasUnavailable(trial: Pick<TrialRecord, "escalation_reasons">): boolean {
  return trial.escalation_reasons.includes("planner_unavailable");
}

/**
 * The trial's verdict label: critic_verdict or status, including the uncounted outcomes. An
 * infrastructure error is `error` in both schemes, never an unavailable critic. An engine trial
 * whose critic or planner was unavailable is `unavailable`: its escalation is the outage, not a
 * decision, and docs/design.md §10 keeps critic-unavailable trials out of verdict agreement (the same
 * reasoning holds for the planner).
 */
export function verdictLabel(trial: TrialRecord): string {
  if (trial.status === "error") return trial.status;
  if (verdictScheme(trial) === "engine") return criticWasUnavailable(trial) || plannerWasUnavailable(trial) ? "unavailable" : trial.status;
  return trial.critic_verdict ?? "unavailable";
}

/** Whether the trial enters verdict-agreement metrics (not critic_unavailable, not error). */
export function isCounted(trial: TrialRecord): boolean {
  return VERDICT_CATEGORIES[verdictScheme(trial)].includes(verdictLabel(trial));
}

/**
 * Whether every trial that ran the gates (recorded a round) recorded exactly the same gate findings
 * (canonical JSON of the first round's findings: codes, tasks, messages, keys, in order); null
 * when no trial ran them. Gates never read prose, so an injection copy and its control (a trap and
 * its control, a boundary twin and its control) must agree.
 */
export function gatesIdentical(trials: readonly TrialRecord[]): boolean | null {
  const texts = new Set(trials.flatMap((t) => (t.rounds[0] === undefined ? [] : [canonicalJson(t.rounds[0].gate_findings)])));
  return texts.size === 0 ? null : texts.size === 1;
}

/** Normalized findings of every critic audit that completed in the trial. */
export function criticFindings(trial: TrialRecord): NormalizedFinding[] {
  return trial.rounds.flatMap((r) => (r.critic?.outcome === "ok" ? r.critic.findings : []));
}

/** Whether a finding points at a task: its task_id, or a task its evidence cites. */
export function isAtTask(finding: NormalizedFinding, task: string): boolean {
  return finding.task_id === task || (finding.evidence?.tasks.includes(task) ?? false);
}

export function rawSeverityIsBlocker(finding: NormalizedFinding): boolean {
  return typeof finding.raw.severity === "string" && finding.raw.severity.trim().toLowerCase() === "blocker";
}

export type BlockerOrigin = "gate" | "critic";

/** Distinct keys that blocked in any round of the trial, by origin (critic keys start `critic:`). */
export function blockerKeysByOrigin(trial: TrialRecord): Record<BlockerOrigin, Set<string>> {
  const keys = { gate: new Set<string>(), critic: new Set<string>() };
  for (const round of trial.rounds) {
    for (const key of round.blocker_keys) keys[key.startsWith("critic:") ? "critic" : "gate"].add(key);
  }
  return keys;
}

/** LLM calls as the metrics count them: every transport attempt (retries included). */
export function transportAttempts(trial: TrialRecord, role?: "planner" | "critic"): number {
  return trial.calls.filter((c) => role === undefined || c.role === role).reduce((s, c) => s + c.transport_attempts.length, 0);
}
