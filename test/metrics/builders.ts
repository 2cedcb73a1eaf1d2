/**
 * Small, explicit builders of trial records, fixtures and goals for the metric tests. Every field
 * a metric reads is a parameter; the rest are fixed, valid placeholders.
 */
import type { EscalationReason, Severity } from "../../src/formats/enums.ts";
import type { EvidenceStatus, GateCode, GateFinding, NormalizedFinding } from "../../src/formats/findings.ts";
import { GATE_CODES } from "../../src/formats/findings.ts";
import { FixtureSchema, type Fixture } from "../../src/formats/fixture.ts";
import { CorpusGoalSchema, type CorpusGoal } from "../../src/formats/goal.ts";
import { PlanSchema, type Plan, type PlanInput } from "../../src/formats/plan.ts";
import type { CallRecord, CriticVerdict, Role, RoundRecord, TrialRecord, TrialStatus } from "../../src/formats/records.ts";

type TaskInput = PlanInput["tasks"][number];

export function plan(tasks: TaskInput[] = [{ id: "a", description: "task a", kind: "read" }], goalId = "g"): Plan {
  return PlanSchema.parse({ id: `plan-${goalId}`, goal_id: goalId, tasks });
}

interface FindingSpec {
  family?: string;
  severity?: Severity;
  /** What the model said; defaults to the normalized severity. */
  rawSeverity?: string;
  task?: string | null;
  claim?: string;
  tasks?: string[];
  status?: EvidenceStatus;
}

export function finding(spec: FindingSpec = {}): NormalizedFinding {
  const {
    family = "unsafe_sequencing",
    severity = "blocker",
    task = "a",
    claim = "misordered",
    tasks = task === null ? [] : [task],
    status = "supported",
  } = spec;
  return {
    origin: "critic",
    raw: { family, severity: spec.rawSeverity ?? severity },
    family,
    severity,
    task_id: task,
    message: `${family} at ${task}`,
    suggested_fix: null,
    evidence: { claim, tasks, facts: [] },
    evidence_status: status,
    evidence_reason: "",
    normalization: [],
    key: `critic:${family}:${task}:${claim}:${tasks.join(",")}`,
  };
}

export function gateFinding(code: GateCode, task: string | null): GateFinding {
  const { gate, family } = GATE_CODES[code];
  return { origin: "gate", gate, code, family, severity: "blocker", task_id: task, message: code, key: `${gate}:${code}:${task}:` };
}

interface CallSpec {
  role?: Role;
  attempts?: number;
  outcome?: CallRecord["outcome"];
  usage?: { input_tokens: number; output_tokens: number } | null;
  cost?: number | null;
}

export function call(spec: CallSpec = {}): CallRecord {
  const { role = "critic", attempts = 1, outcome = "ok", usage = { input_tokens: 100, output_tokens: 20 }, cost = 0 } = spec;
  return {
    role,
    round: 0,
    request_sha256: "0".repeat(64),
    attempt: 0,
    context: {
      provider: "sim",
      base_url: null,
      model: "sim-1",
      temperature: 0,
      top_p: null,
      seed: null,
      max_tokens: null,
      response_format: "json_schema",
      system_prompt_sha256: "s",
      user_template_sha256: "t",
      user_prompt_sha256: "u",
      schema_sha256: null,
      sdk: null,
      sdk_version: null,
    },
    reported: { model: "sim-1", system_fingerprint: null },
    model_mismatch: null,
    usage,
    cost_usd: cost,
    latency_ms: 10,
    outcome,
    error_class: null,
    http_status: null,
    transport_attempts: Array.from({ length: attempts }, (_, index) => ({
      index,
      latency_ms: 5,
      outcome: index === attempts - 1 ? ("ok" as const) : ("error" as const),
      error_class: null,
      http_status: null,
    })),
    raw_text: null,
    validation_error: null,
    cached: false,
  };
}

interface RoundSpec {
  plan?: Plan;
  gateFindings?: GateFinding[];
  /** Critic findings of the round's audit; `null` for an unavailable critic, undefined for no audit. */
  critic?: NormalizedFinding[] | null;
  blockerKeys?: string[];
  /** Carried blockers that lapsed in the round; undefined writes a round as older files have it (no field). */
  lapsed?: { key: string; task_id: string }[];
}

function round(index: number, spec: RoundSpec = {}): RoundRecord {
  const critic =
    spec.critic === undefined
      ? null
      : spec.critic === null
        ? { outcome: "critic_unavailable" as const, reason: "invalid_output", raw_text: "oops", findings: [], malformed_findings: 0 }
        : { outcome: "ok" as const, reason: null, raw_text: "{}", findings: spec.critic, malformed_findings: 0 };
  return {
    index,
    plan: spec.plan ?? plan(),
    structural_hash: "h",
    gate_findings: spec.gateFindings ?? [],
    repairs: [],
    critic,
    carried_forward: [],
    ...(spec.lapsed === undefined ? {} : { carry_forward_lapsed: spec.lapsed }),
    blocker_keys: spec.blockerKeys ?? [],
    decision: "approve",
    reason: null,
  };
}

function trialRecord(fields: Partial<TrialRecord> & Pick<TrialRecord, "suite" | "item_id" | "trial" | "status">): TrialRecord {
  return {
    schema_version: 1,
    escalation_reason: null,
    escalation_reasons: [],
    error: null,
    item_hash: `hash-${fields.item_id}`,
    rounds: [],
    critic_verdict: null,
    verdict: fields.status === "approved" ? "approve" : "escalate",
    calls: [],
    cost_usd: 0,
    latency_ms: 100,
    started_at: "2026-01-01T00:00:00Z",
    finished_at: "2026-01-01T00:00:01Z",
    ...fields,
  };
}

interface BoundarySpec {
  findings?: NormalizedFinding[];
  gateFindings?: GateFinding[];
  /** The full decision; defaults to escalate on block or unavailable. */
  verdict?: "approve" | "escalate";
  calls?: CallRecord[];
}

/** A critic-only trial of a boundary fixture. */
export function boundaryTrial(item: string, trial: number, criticVerdict: CriticVerdict, spec: BoundarySpec = {}): TrialRecord {
  const verdict = spec.verdict ?? (criticVerdict === "pass" ? "approve" : "escalate");
  return trialRecord({
    suite: "boundary",
    item_id: item,
    trial,
    status: verdict === "approve" ? "approved" : "escalated",
    critic_verdict: criticVerdict,
    verdict,
    rounds: [round(0, { gateFindings: spec.gateFindings, critic: criticVerdict === "unavailable" ? null : (spec.findings ?? []) })],
    calls: spec.calls ?? [call()],
  });
}

/** Boundary trials from a verdict string: B = block, P = pass, U = unavailable. */
export function boundaryTrials(item: string, pattern: string, spec: BoundarySpec = {}): TrialRecord[] {
  const verdicts: Record<string, CriticVerdict> = { B: "block", P: "pass", U: "unavailable" };
  return [...pattern].map((c, i) => boundaryTrial(item, i, verdicts[c]!, spec));
}

interface EngineSpec {
  reasons?: EscalationReason[];
  rounds?: RoundSpec[];
  latency?: number;
  calls?: CallRecord[];
  cost?: number | null;
}

/** A full-engine trial of a corpus goal. */
export function engineTrial(item: string, trial: number, status: TrialStatus, spec: EngineSpec = {}): TrialRecord {
  const reasons = spec.reasons ?? (status === "escalated" ? ["revision_cap_reached" as const] : []);
  return trialRecord({
    suite: "corpus",
    item_id: item,
    trial,
    status,
    escalation_reason: reasons[0] ?? null,
    escalation_reasons: reasons,
    error: status === "error" ? "provider down" : null,
    rounds: status === "error" ? [] : (spec.rounds ?? [{}]).map((r, i) => round(i, r)),
    latency_ms: spec.latency ?? 100,
    calls: spec.calls ?? [call({ role: "planner" })],
    cost_usd: spec.cost === undefined ? 0 : spec.cost,
  });
}

/** Engine trials from a status string: A = approved, E = escalated, X = error. */
export function engineTrials(item: string, pattern: string, spec: EngineSpec = {}): TrialRecord[] {
  const statuses: Record<string, TrialStatus> = { A: "approved", E: "escalated", X: "error" };
  return [...pattern].map((c, i) => engineTrial(item, i, statuses[c]!, spec));
}

interface FixtureSpec {
  defects?: { task: string; family: string; claim?: string; gate_visible?: boolean }[];
  tasks?: TaskInput[];
  tolerance?: "strict" | "balanced";
  injectionOf?: string;
  expectedGate?: { code: GateCode; task_id: string | null }[];
  expectedVerdict?: "approve" | "escalate";
  expectedCriticVerdict?: { strict: "block" | "pass"; balanced: "block" | "pass" };
  /** The fixture group (its cluster); default: the fixture alone. */
  group?: string;
}

export function fixture(id: string, spec: FixtureSpec = {}): Fixture {
  const defects = spec.defects ?? [];
  const expected = spec.expectedVerdict ?? (defects.length > 0 ? "escalate" : "approve");
  return FixtureSchema.parse({
    id,
    description: `fixture ${id}`,
    group: spec.group ?? `grp-${id}`,
    injection_of: spec.injectionOf ?? null,
    goal: { id, domain: "test", title: id, description: id, risk_tolerance: spec.tolerance ?? "strict" },
    plan: { id: `plan-${id}`, goal_id: id, tasks: spec.tasks ?? [{ id: "a", description: "task a", kind: "read" }] },
    seeded_defects: defects.map((d) => ({
      task: d.task,
      family: d.family,
      claim: { kind: d.claim ?? "misordered", tasks: [d.task] },
      gate_visible: d.gate_visible ?? false,
    })),
    expected_gate_findings: spec.expectedGate ?? [],
    expected_verdict: { strict: expected, balanced: expected },
    expected_critic_verdict: spec.expectedCriticVerdict ?? {
      strict: expected === "escalate" ? "block" : "pass",
      balanced: expected === "escalate" ? "block" : "pass",
    },
  });
}

export function goal(id: string, expect: Record<string, unknown>): CorpusGoal {
  return CorpusGoalSchema.parse({
    id,
    domain: "test",
    title: id,
    description: id,
    risk_tolerance: "strict",
    category: "strict",
    expect,
  });
}

/**
 * Every noise metric of docs/design.md §10 (flip, drift, migration, both under-claim levels, over-claim,
 * unsupported evidence, downgrade, injection effect) and the outage rates: all exactly 0 under the
 * `perfect` sim profile.
 */
export const NOISE_METRICS = [
  "label_flip_rate",
  "engine_flip_rate",
  "evidence_drift_rate",
  "evidence_drift_rate.unanimous",
  "family_migration_rate",
  "underclaim_approvals",
  "underclaim_approvals_majority",
  "underclaim_approvals_any",
  "critical_underclaims",
  "critic_miss_rate",
  "critical_critic_misses",
  "critic_miss_rate.gate_invisible",
  "overclaim_rate",
  "overclaim_majority",
  "unsupported_evidence_rate",
  "unsupported_evidence_rate.contradicted",
  "unsupported_evidence_rate.missing_task",
  "downgrade_rate",
  "injection_effect",
  "injection_effect.toward_pass",
  "injection_verdict_shift.raw",
  "malformed_finding_rate",
  "invalid_output_rate",
  "critic_unavailable_rate",
  "planner_unavailable_rate",
] as const;
