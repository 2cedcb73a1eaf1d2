import { z } from "zod";
import { ESCALATION_REASONS } from "./enums.ts";
import { GateFindingSchema, NormalizedFindingSchema, RepairNoteSchema } from "./findings.ts";
import { PlanSchema } from "./plan.ts";

export const ROLES = ["planner", "critic"] as const;
export type Role = (typeof ROLES)[number];

/** Request-side decision context of one LLM call (docs/design.md §7). Unset parameters are null. */
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
  /** null for a request fieldtest did not build (an external engine's): only its rendered text is known. */
  user_template_sha256: z.string().nullable(),
  user_prompt_sha256: z.string(),
  schema_sha256: z.string().nullable(),
  sdk: z.string().nullable(),
  sdk_version: z.string().nullable(),
});
export type DecisionContext = z.output<typeof DecisionContextSchema>;

const MODEL_MISMATCHES = ["snapshot", "different"] as const;
export type ModelMismatch = null | (typeof MODEL_MISMATCHES)[number];

/** One send of a request (a retry is another one); "LLM calls" count these. */
const TransportAttemptSchema = z.strictObject({
  index: z.number().int().min(0),
  latency_ms: z.number().min(0),
  outcome: z.enum(["ok", "error"]),
  error_class: z.string().nullable(),
  http_status: z.number().int().nullable(),
});
export type TransportAttempt = z.output<typeof TransportAttemptSchema>;

const UsageSchema = z.strictObject({ input_tokens: z.number().int().min(0), output_tokens: z.number().int().min(0) });
export type Usage = z.output<typeof UsageSchema>;

/**
 * One model call as the harness made it: one structured-output attempt, with every transport
 * attempt (retries) inside it. "LLM calls" in the metrics count transport attempts.
 */
export const CallRecordSchema = z.strictObject({
  role: z.enum(ROLES),
  round: z.number().int().min(0),
  /** SHA-256 of the canonical wire request plus role and trial index: the cache and replay key. */
  request_sha256: z.string(),
  /** Structured-output attempt index (0 = first ask; later ones carry validation feedback). */
  attempt: z.number().int().min(0),
  context: DecisionContextSchema,
  reported: z.strictObject({ model: z.string().nullable(), system_fingerprint: z.string().nullable() }),
  model_mismatch: z.enum(MODEL_MISMATCHES).nullable(),
  usage: UsageSchema.nullable(),
  /** USD; null when the price is unknown or an attempt may have been billed without usage (never 0 for unknown). */
  cost_usd: z.number().min(0).nullable(),
  latency_ms: z.number().min(0),
  outcome: z.enum(["ok", "invalid_output", "error"]),
  error_class: z.string().nullable(),
  http_status: z.number().int().nullable(),
  transport_attempts: z.array(TransportAttemptSchema),
  raw_text: z.string().nullable(),
  /** Validation error fed back to the model on the next attempt, if any. */
  validation_error: z.string().nullable(),
  cached: z.boolean(),
  /** Calls an external engine made through the recording proxy: the proxy's own order, and what the request said of its sender. */
  proxy: z
    .strictObject({
      /** The proxy's sequence number within the trial: rounds are ordered by it, never by an engine's logs. */
      seq: z.number().int().min(0),
      user_agent: z.string().nullable(),
      /** The seq of the earlier identical request this one sends again (the engine rejected an answer); null for a new request. */
      retry_of: z.number().int().min(0).nullable(),
    })
    .optional(),
  // Imported runs only (`fieldtest import`): what the source log held, and what it lacked.
  messages: z.array(z.strictObject({ role: z.string(), content: z.string() })).optional(),
  logged_at: z.string().optional(),
  not_recorded: z.array(z.string()).optional(),
  inferred: z.array(z.string()).optional(),
});
export type CallRecord = z.output<typeof CallRecordSchema>;

const CRITIC_OUTCOMES = ["ok", "critic_unavailable"] as const;

const CriticAuditSchema = z.strictObject({
  outcome: z.enum(CRITIC_OUTCOMES),
  /** For critic_unavailable: invalid_output | provider_error | budget_exceeded. */
  reason: z.string().nullable(),
  raw_text: z.string().nullable(),
  findings: z.array(NormalizedFindingSchema),
  malformed_findings: z.number().int().min(0),
});
export type CriticAudit = z.output<typeof CriticAuditSchema>;

const ROUND_DECISIONS = ["approve", "revise", "escalate"] as const;

const RoundRecordSchema = z.strictObject({
  index: z.number().int().min(0),
  plan: PlanSchema,
  /** SHA-256 of the plan's structural content (docs/design.md §6). */
  structural_hash: z.string(),
  gate_findings: z.array(GateFindingSchema),
  repairs: z.array(RepairNoteSchema),
  /** null when the critic did not run this round (mode or gate blockers). */
  critic: CriticAuditSchema.nullable(),
  /** Critic blockers carried forward from earlier rounds (re-checked on this plan). */
  carried_forward: z.array(NormalizedFindingSchema),
  /**
   * Critic blockers in force after the previous round that lapsed on this plan because a task they
   * cite is gone (renamed or removed), each with that old task id (docs/design.md §6). Absent from
   * records written before it was recorded, and from imported ones.
   */
  carry_forward_lapsed: z.array(z.strictObject({ key: z.string(), task_id: z.string() })).optional(),
  /** Keys of every blocker that blocks in this round, gate and critic. */
  blocker_keys: z.array(z.string()),
  decision: z.enum(ROUND_DECISIONS),
  reason: z.enum(ESCALATION_REASONS).nullable(),
  /**
   * A plan translated from another engine's format (an import, or an external engine's result
   * reader): the tasks the translator invented, and the gate findings set aside because they rest
   * on one of them alone (src/gates/translated.ts). `gate_findings` and `blocker_keys` hold the
   * counted findings only.
   */
  translated: z.strictObject({ tasks: z.array(z.string()), gate_findings: z.array(GateFindingSchema) }).optional(),
});
export type RoundRecord = z.output<typeof RoundRecordSchema>;

export const TRIAL_STATUSES = ["approved", "escalated", "error"] as const;
export type TrialStatus = (typeof TRIAL_STATUSES)[number];
export const SUITES = ["corpus", "boundary", "imported", "security", "injection"] as const;
export type Suite = (typeof SUITES)[number];
const CRITIC_VERDICTS = ["block", "pass", "unavailable"] as const;
export type CriticVerdict = (typeof CRITIC_VERDICTS)[number];

export const TRIAL_SCHEMA_VERSION = 1;

/**
 * How a trial of an external engine ended, decided by what the proxy and the process showed, never
 * by what the engine says: `ok` (its verdict counts), or why it has none.
 */
const ENGINE_OUTCOMES = ["ok", "engine_error", "engine_timeout", "provider_error", "replay_miss"] as const;
export type EngineOutcomeKind = (typeof ENGINE_OUTCOMES)[number];

/** A finding as an external engine reported it: kept as it came (only `severity` is read, to count its blockers). */
export const EngineFindingSchema = z.looseObject({
  severity: z.string(),
  origin: z.string().optional(),
  family: z.string().optional(),
  code: z.string().optional(),
  task_id: z.string().nullable().optional(),
  message: z.string().optional(),
});
export type EngineFinding = z.output<typeof EngineFindingSchema>;

/** What a trial of an external engine adds to its record (`fieldtest run --engine`). */
const EngineTrialSchema = z.strictObject({
  outcome: z.enum(ENGINE_OUTCOMES),
  /** What the engine said: its status, its escalation reasons in its own words, its findings per round. */
  reported: z.strictObject({
    status: z.enum(["approved", "escalated", "error"]).nullable(),
    reasons: z.array(z.string()),
    error: z.string().nullable(),
    findings: z.array(z.array(EngineFindingSchema)),
  }),
  /** The process: its exit code or the signal that ended it (null for a worker's trial), and its last lines of stderr. */
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
  stderr_tail: z.string().nullable(),
  /** Calls the proxy answered with an error (after its retries) that no identical resend later recovered, per role. */
  failed_calls: z.strictObject({ planner: z.number().int().min(0), critic: z.number().int().min(0) }),
  /** Requests the proxy refused before any model saw them: a wrong token, a body that is not JSON, streaming. */
  refused_requests: z.number().int().min(0),
});
export type EngineTrial = z.output<typeof EngineTrialSchema>;

/** The identifying head of a trial line (docs/design.md §8): its first fields, checked before the rest. */
export const TrialHeadSchema = z.looseObject({
  schema_version: z.literal(TRIAL_SCHEMA_VERSION),
  suite: z.enum(SUITES),
  item_id: z.string(),
  trial: z.number().int().min(0),
  status: z.enum(TRIAL_STATUSES),
});

/** One line of trials.jsonl: one finished trial (docs/design.md §8). */
export const TrialRecordSchema = z.strictObject({
  ...TrialHeadSchema.shape,
  /** The first escalation reason by docs/design.md §6 order; null when approved. */
  escalation_reason: z.enum(ESCALATION_REASONS).nullable(),
  /** Every reason that applied (includes critic_unavailable / planner_unavailable whenever they happened). */
  escalation_reasons: z.array(z.enum(ESCALATION_REASONS)),
  /** For status error: what went wrong (infrastructure, not a verdict). */
  error: z.string().nullable(),
  item_hash: z.string(),
  rounds: z.array(RoundRecordSchema),
  /** Critic-only trials (boundary suite); null for engine trials. */
  critic_verdict: z.enum(CRITIC_VERDICTS).nullable(),
  verdict: z.enum(["approve", "escalate"]),
  calls: z.array(CallRecordSchema),
  /** Sum of call costs; null when any call's cost is null. */
  cost_usd: z.number().min(0).nullable(),
  latency_ms: z.number().min(0),
  started_at: z.string(),
  finished_at: z.string(),
  /** External-engine runs only (`fieldtest run --engine`). */
  engine: EngineTrialSchema.optional(),
  /** Imported runs only: where the trial came from and what did not carry over (harness/import). */
  conversion: z
    .strictObject({
      source: z.strictObject({ trace: z.string().nullable(), planner_log: z.string().nullable(), critic_log: z.string().nullable() }),
      rules: z.array(z.string()),
      notes: z.array(z.strictObject({ kind: z.string(), subject: z.string(), detail: z.string() })),
      unmatched_log_calls: z.number().int().min(0),
    })
    .optional(),
});
export type TrialRecord = z.output<typeof TrialRecordSchema>;

export function trialKey(t: { suite: string; item_id: string; trial: number }): string {
  return `${t.suite}/${t.item_id}/${t.trial}`;
}

/** What the engine returns for one trial: the record without the runner's bookkeeping. */
export type EngineOutcome = Pick<
  TrialRecord,
  "status" | "escalation_reason" | "escalation_reasons" | "error" | "rounds" | "critic_verdict" | "verdict" | "calls"
> &
  Pick<Partial<TrialRecord>, "engine">;

export const SPEND_SCHEMA_VERSION = 1;

/**
 * One line of a run's spend journal (docs/design.md §8), written as a provider send leaves ("sent") and
 * as it returns ("returned"), paired by (session, id). A send with no return was in flight when
 * its process died: it counts as a call, and its cost is unknown unless the provider is the sim.
 */
export const SpendLineSchema = z.discriminatedUnion("event", [
  z.strictObject({
    schema_version: z.literal(SPEND_SCHEMA_VERSION),
    event: z.literal("sent"),
    session: z.string(),
    id: z.number().int().min(0),
    at: z.string(),
    /** `suite/item/trial` of the trial that made the call (null outside a sweep). */
    trial_key: z.string().nullable(),
    role: z.enum(ROLES),
    provider: z.string(),
    model: z.string(),
    round: z.number().int().min(0),
    /** Structured-output attempt, and transport attempt (retry) within it. */
    attempt: z.number().int().min(0),
    index: z.number().int().min(0),
  }),
  z.strictObject({
    schema_version: z.literal(SPEND_SCHEMA_VERSION),
    event: z.literal("returned"),
    session: z.string(),
    id: z.number().int().min(0),
    at: z.string(),
    role: z.enum(ROLES),
    outcome: z.enum(["ok", "error"]),
    error_class: z.string().nullable(),
    http_status: z.number().int().nullable(),
    usage: UsageSchema.nullable(),
    /** null: unknown (no usage reported, an unpriced model, or a failure the provider may have billed). */
    cost_usd: z.number().min(0).nullable(),
  }),
]);
export type SpendLine = z.output<typeof SpendLineSchema>;

/** What a run (or one session of it) spent, summed from the spend journal. */
export const SpendSchema = z.strictObject({
  /** Provider sends (transport attempts, retries included): what --max-calls counts. */
  calls: z.number().int().min(0),
  /** Tokens the provider reported (sends without usage add nothing); null when no send reported usage (the sim never does). */
  input_tokens: z.number().int().min(0).nullable(),
  output_tokens: z.number().int().min(0).nullable(),
  /** USD of the sends whose cost is known: the whole cost, or a lower bound (next field). */
  cost_usd: z.number().min(0),
  /** Sends whose cost is unknown: no usage reported, a timeout or cut body, or in flight at a crash. */
  unknown_cost_calls: z.number().int().min(0),
  /** true when some send's cost is unknown: the run cost at least `cost_usd`. */
  cost_usd_is_lower_bound: z.boolean(),
});
export type Spend = z.output<typeof SpendSchema>;
