import { z } from "zod";
import type { EscalationReason } from "./enums.ts";
import type { GateFinding, NormalizedFinding, RepairNote } from "./findings.ts";
import type { Plan } from "./plan.ts";

export const ROLES = ["planner", "critic"] as const;
export type Role = (typeof ROLES)[number];

/** Request-side decision context of one LLM call (DESIGN.md §7). Unset parameters are null. */
export const DecisionContextSchema = z.strictObject({
  provider: z.string(),
  base_url: z.string().nullable(),
  model: z.string(),
  temperature: z.number().nullable(),
  top_p: z.number().nullable(),
  seed: z.number().nullable(),
  max_tokens: z.number().nullable(),
  response_format: z.enum(["json_schema", "json_object", "tool", "none"]),
  system_prompt_sha256: z.string(),
  user_template_sha256: z.string(),
  user_prompt_sha256: z.string(),
  schema_sha256: z.string().nullable(),
  sdk: z.string().nullable(),
  sdk_version: z.string().nullable(),
});
export type DecisionContext = z.output<typeof DecisionContextSchema>;

export type ModelMismatch = null | "snapshot" | "different";

export interface TransportAttempt {
  index: number;
  latency_ms: number;
  outcome: "ok" | "error";
  error_class: string | null;
  http_status: number | null;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

/**
 * One model call as the harness made it: one structured-output attempt, with every transport
 * attempt (retries) inside it. "LLM calls" in the metrics count transport attempts.
 */
export interface CallRecord {
  role: Role;
  round: number;
  /** SHA-256 of the canonical wire request plus role and trial index: the cache and replay key. */
  request_sha256: string;
  /** Structured-output attempt index (0 = first ask; later ones carry validation feedback). */
  attempt: number;
  context: DecisionContext;
  reported: { model: string | null; system_fingerprint: string | null };
  model_mismatch: ModelMismatch;
  usage: Usage | null;
  /** USD; null when the price is unknown (never 0 for unknown). */
  cost_usd: number | null;
  latency_ms: number;
  outcome: "ok" | "invalid_output" | "error";
  error_class: string | null;
  http_status: number | null;
  transport_attempts: TransportAttempt[];
  raw_text: string | null;
  /** Validation error fed back to the model on the next attempt, if any. */
  validation_error: string | null;
  cached: boolean;
}

export type CriticOutcome = "ok" | "critic_unavailable";

export interface CriticAudit {
  outcome: CriticOutcome;
  /** For critic_unavailable: invalid_output | provider_error | budget_exceeded. */
  reason: string | null;
  raw_text: string | null;
  findings: NormalizedFinding[];
  malformed_findings: number;
}

export type RoundDecision = "approve" | "revise" | "escalate";

export interface RoundRecord {
  index: number;
  plan: Plan;
  /** SHA-256 of the plan's structural content (DESIGN.md §6). */
  structural_hash: string;
  gate_findings: GateFinding[];
  repairs: RepairNote[];
  /** null when the critic did not run this round (mode or gate blockers). */
  critic: CriticAudit | null;
  /** Critic blockers carried forward from earlier rounds (re-checked on this plan). */
  carried_forward: NormalizedFinding[];
  /** Keys of every blocker that blocks in this round, gate and critic. */
  blocker_keys: string[];
  decision: RoundDecision;
  reason: EscalationReason | null;
}

export const TRIAL_STATUSES = ["approved", "escalated", "error"] as const;
export type TrialStatus = (typeof TRIAL_STATUSES)[number];
export const SUITES = ["corpus", "boundary", "imported", "security", "injection"] as const;
export type Suite = (typeof SUITES)[number];
export type CriticVerdict = "block" | "pass" | "unavailable";

export interface TrialRecord {
  schema_version: 1;
  suite: Suite;
  item_id: string;
  trial: number;
  status: TrialStatus;
  /** The first escalation reason by DESIGN.md §6 order; null when approved. */
  escalation_reason: EscalationReason | null;
  /** Every reason that applied (includes critic_unavailable / planner_unavailable whenever they happened). */
  escalation_reasons: EscalationReason[];
  /** For status error: what went wrong (infrastructure, not a verdict). */
  error: string | null;
  item_hash: string;
  rounds: RoundRecord[];
  /** Critic-only trials (boundary suite); null for engine trials. */
  critic_verdict: CriticVerdict | null;
  verdict: "approve" | "escalate";
  calls: CallRecord[];
  /** Sum of call costs; null when any call's cost is null. */
  cost_usd: number | null;
  latency_ms: number;
  started_at: string;
  finished_at: string;
}

/** Reading trials.jsonl: the identifying head is checked strictly, the body is trusted as written by us. */
export const TrialHeadSchema = z.looseObject({
  schema_version: z.literal(1),
  suite: z.enum(SUITES),
  item_id: z.string(),
  trial: z.number().int().min(0),
  status: z.enum(TRIAL_STATUSES),
});

export function trialKey(t: { suite: string; item_id: string; trial: number }): string {
  return `${t.suite}/${t.item_id}/${t.trial}`;
}

/** What the engine returns for one trial: the record without the runner's bookkeeping. */
export type EngineOutcome = Pick<
  TrialRecord,
  "status" | "escalation_reason" | "escalation_reasons" | "error" | "rounds" | "critic_verdict" | "verdict" | "calls"
>;
