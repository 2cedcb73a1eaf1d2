import { stringify } from "csv-stringify/sync";
import type { TrialRecord } from "../../src/formats/records.ts";
import { blockerKeysByOrigin, transportAttempts, verdictLabel } from "../../src/metrics/trial-facts.ts";

/** Keys that blocked in any round of the trial, sorted (gate and critic alike). */
function trialBlockerKeys(t: TrialRecord): string[] {
  const keys = blockerKeysByOrigin(t);
  return [...keys.gate, ...keys.critic].sort();
}

const TRIAL_COLUMNS = [
  "suite",
  "item_id",
  "trial",
  "status",
  "verdict_label",
  "critic_verdict",
  "verdict",
  "escalation_reason",
  "escalation_reasons",
  "rounds",
  "gate_blockers_final",
  "critic_blockers_final",
  "blocker_keys",
  "llm_calls",
  "input_tokens",
  "output_tokens",
  "cost_usd",
  "latency_ms",
  "planner_model",
  "critic_model",
  "item_hash",
  "error",
  "started_at",
  "finished_at",
] as const;

function modelsOf(t: TrialRecord, role: string): string {
  return [...new Set(t.calls.filter((c) => c.role === role).map((c) => c.context.model))].sort().join(";");
}

/** One row per trial; unknown numbers are empty cells, never 0. */
function trialRow(t: TrialRecord): Record<(typeof TRIAL_COLUMNS)[number], string | number | null> {
  const last = t.rounds.at(-1);
  const usage = t.calls.map((c) => c.usage);
  const known = usage.every((u) => u !== null);
  return {
    suite: t.suite,
    item_id: t.item_id,
    trial: t.trial,
    status: t.status,
    verdict_label: verdictLabel(t),
    critic_verdict: t.critic_verdict,
    verdict: t.verdict,
    escalation_reason: t.escalation_reason,
    escalation_reasons: t.escalation_reasons.join(";"),
    rounds: t.rounds.length,
    gate_blockers_final: last ? last.gate_findings.length : 0,
    critic_blockers_final: last ? (last.critic?.findings ?? []).filter((f) => f.severity === "blocker").length : 0,
    blocker_keys: trialBlockerKeys(t).join(";"),
    llm_calls: transportAttempts(t),
    input_tokens: known ? usage.reduce((s, u) => s + u!.input_tokens, 0) : null,
    output_tokens: known ? usage.reduce((s, u) => s + u!.output_tokens, 0) : null,
    cost_usd: t.cost_usd,
    latency_ms: t.latency_ms,
    planner_model: modelsOf(t, "planner"),
    critic_model: modelsOf(t, "critic"),
    item_hash: t.item_hash,
    error: t.error,
    started_at: t.started_at,
    finished_at: t.finished_at,
  };
}

/**
 * A text cell a spreadsheet would run as a formula (it starts with = + - @, a tab or a carriage
 * return: a provider's error text or the model name it reports can) gets a leading ' (OWASP's
 * CSV-injection guard); numbers are written as numbers.
 */
export const inertCell = (text: string): string => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

/** trials.csv: a header line and one line per trial, quoted by csv-stringify. */
export function trialsCsv(trials: readonly TrialRecord[]): string {
  return stringify(trials.map(trialRow), { header: true, columns: [...TRIAL_COLUMNS], cast: { number: (n) => String(n), string: inertCell } });
}
