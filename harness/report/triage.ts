import type { NormalizedFinding } from "../../src/formats/findings.ts";
import type { RoundRecord, TrialRecord } from "../../src/formats/records.ts";
import type { ItemExpectation } from "../../src/metrics/expectations.ts";
import { groupTrials, summarizeItem, type ItemSummary } from "../../src/metrics/items.ts";
import { verdictLabel, whyUnavailable } from "../../src/metrics/trial-facts.ts";
import type { LoadedRun } from "../run/load.ts";

/**
 * Item triage for report.html: one row per item (what was expected, what happened, which
 * expectation failed) and, per item, its trials side by side with the round each blocker came
 * from. Pure: derived from the loaded run, nothing recomputed that the summary already judged.
 */

type ExpectationState = "pass" | "fail" | "not_judged" | "no_definition";

export interface ItemRow {
  /** `suite/item_id`. */
  key: string;
  suite: string;
  item_id: string;
  /** The expected decision: the goal's expect.verdict, or the fixture's expected_verdict under its tolerance. */
  expected: string | null;
  n_trials: number;
  verdict_counts: Record<string, number>;
  modal_verdict: string | null;
  disagreement: number | null;
  expectation: ExpectationState;
  /** Failed check name → trials that failed it. */
  failed_checks: Record<string, number>;
  blocker_keys: number;
}

interface FindingView {
  family: string;
  severity: string;
  raw_severity: string;
  evidence_status: string;
  task: string | null;
  claim: string | null;
  message: string;
  rules: string[];
  blocks: boolean;
}

interface BlockerView {
  key: string;
  origin: "gate" | "critic";
  /** The round in which this key first blocked in the trial (0-based). */
  since: number;
  /** Re-checked from an earlier round's audit rather than raised by this round's critic. */
  carried: boolean;
}

interface RoundView {
  index: number;
  decision: string;
  reason: string | null;
  tasks: number;
  gate: string[];
  repairs: string[];
  critic: { outcome: string; reason: string | null; malformed: number; findings: FindingView[] } | null;
  blockers: BlockerView[];
}

interface TrialView {
  trial: number;
  status: string;
  verdict: string;
  reasons: string[];
  error: string | null;
  /** For a trial whose planner or critic kept answering badly: its last rejected answer's reason. */
  rejected: string | null;
  latency_ms: number;
  cost_usd: number | null;
  calls: number;
  /** Failed expectation checks of this trial (`name: detail`). */
  failures: string[];
  rounds: RoundView[];
}

export interface ItemDetail {
  row: ItemRow;
  trials: TrialView[];
}

const MESSAGE_CHARS = 240;
const clip = (s: string) => (s.length > MESSAGE_CHARS ? `${s.slice(0, MESSAGE_CHARS - 1)}…` : s);

function findingView(f: NormalizedFinding, blocking: ReadonlySet<string>): FindingView {
  return {
    family: f.family,
    severity: f.severity,
    raw_severity: typeof f.raw.severity === "string" ? f.raw.severity : JSON.stringify(f.raw.severity ?? null),
    evidence_status: f.evidence_status,
    task: f.task_id,
    claim: f.evidence?.claim ?? null,
    message: clip(f.message),
    rules: [...f.normalization],
    blocks: blocking.has(f.key),
  };
}

function roundView(r: RoundRecord, firstBlocked: Map<string, number>): RoundView {
  const blocking = new Set(r.blocker_keys);
  const carried = new Set(r.carried_forward.map((f) => f.key));
  return {
    index: r.index,
    decision: r.decision,
    reason: r.reason,
    tasks: r.plan.tasks.length,
    gate: r.gate_findings.map((f) => `${f.code}@${f.task_id ?? "plan"}`),
    repairs: r.repairs.map((n) => `${n.repair}: ${clip(n.message)}`),
    critic: r.critic && {
      outcome: r.critic.outcome,
      reason: r.critic.reason,
      malformed: r.critic.malformed_findings,
      findings: r.critic.findings.map((f) => findingView(f, blocking)),
    },
    blockers: r.blocker_keys.map((key) => ({
      key,
      origin: key.startsWith("critic:") ? "critic" : "gate",
      since: firstBlocked.get(key) ?? r.index,
      carried: carried.has(key) && !(r.critic?.findings ?? []).some((f) => f.key === key),
    })),
  };
}

function trialView(t: TrialRecord, expectation: ItemExpectation | undefined): TrialView {
  const firstBlocked = new Map<string, number>();
  for (const r of t.rounds) for (const k of r.blocker_keys) if (!firstBlocked.has(k)) firstBlocked.set(k, r.index);
  return {
    trial: t.trial,
    status: t.status,
    verdict: verdictLabel(t),
    reasons: t.escalation_reasons,
    error: t.error,
    rejected: whyUnavailable(t),
    latency_ms: t.latency_ms,
    cost_usd: t.cost_usd,
    calls: t.calls.length,
    failures: expectation?.trials.find((x) => x.trial === t.trial)?.failures ?? [],
    rounds: t.rounds.map((r) => roundView(r, firstBlocked)),
  };
}

function expectationState(e: ItemExpectation | undefined): ExpectationState {
  if (e === undefined) return "no_definition";
  return e.pass === null ? "not_judged" : e.pass ? "pass" : "fail";
}

/** Every item of the run: its triage row and its trials, in canonical item order. */
export function triage(run: LoadedRun): ItemDetail[] {
  const expectations = new Map<string, ItemExpectation>();
  for (const e of [...run.summary.expectations.goals.items, ...run.summary.expectations.fixtures.items]) expectations.set(`${e.suite}/${e.item_id}`, e);
  const goals = new Map(run.goals.map((g) => [g.id, g.expect.verdict]));
  const fixtures = new Map(run.fixtures.map((f) => [f.id, f.expected_verdict[f.goal.risk_tolerance]]));
  return groupTrials(run.trials).map((group) => {
    const s: ItemSummary = summarizeItem(group);
    const key = `${s.suite}/${s.item_id}`;
    const e = expectations.get(key);
    const row: ItemRow = {
      key,
      suite: s.suite,
      item_id: s.item_id,
      expected: (group.scheme === "critic" ? fixtures.get(s.item_id) : goals.get(s.item_id)) ?? null,
      n_trials: s.n_trials,
      verdict_counts: s.verdict_counts,
      modal_verdict: s.modal_verdict,
      disagreement: s.disagreement,
      expectation: expectationState(e),
      failed_checks: e?.failed_checks ?? {},
      blocker_keys: Object.keys(s.blocker_keys).length,
    };
    return { row, trials: group.trials.map((t) => trialView(t, e)) };
  });
}
