import { z } from "zod";
import { FAMILIES, SEVERITIES, type Family } from "./enums.ts";

export const GATE_IDS = [
  "schema_valid",
  "no_dep_cycles",
  "ordering_sane",
  "preconditions_closed",
  "verification_present",
  "verification_order",
  "rollback_present",
  "rollback_credibility",
  "parallel_safety",
] as const;
export type GateId = (typeof GATE_IDS)[number];

/** Every gate code with its gate and family (docs/design.md §4). */
export const GATE_CODES = {
  schema_invalid: { gate: "schema_valid", family: "feasibility" },
  dependency_cycle: { gate: "no_dep_cycles", family: "unsafe_sequencing" },
  order_violates_dependency: { gate: "ordering_sane", family: "unsafe_sequencing" },
  precondition_wrong_establisher: { gate: "preconditions_closed", family: "unverified_dependencies" },
  precondition_unestablished: { gate: "preconditions_closed", family: "unverified_dependencies" },
  verification_missing: { gate: "verification_present", family: "unverified_dependencies" },
  no_return_check_missing: { gate: "verification_present", family: "unverified_dependencies" },
  verification_reads_stale_state: { gate: "verification_order", family: "unsafe_sequencing" },
  verification_precedes_mutation: { gate: "verification_order", family: "unsafe_sequencing" },
  verification_ignores_output: { gate: "verification_order", family: "unverified_dependencies" },
  rollback_missing: { gate: "rollback_present", family: "weak_rollback" },
  rollback_unreachable: { gate: "rollback_credibility", family: "weak_rollback" },
  rollback_self_dependent: { gate: "rollback_credibility", family: "weak_rollback" },
  rollback_post_consumed: { gate: "rollback_credibility", family: "weak_rollback" },
  rollback_inconsistent_state: { gate: "rollback_credibility", family: "weak_rollback" },
  rollback_requires_unestablished: { gate: "rollback_credibility", family: "weak_rollback" },
  parallel_high_blast: { gate: "parallel_safety", family: "unsafe_sequencing" },
  parallel_shared_resource: { gate: "parallel_safety", family: "unsafe_sequencing" },
} as const satisfies Record<string, { gate: GateId; family: Family }>;
export type GateCode = keyof typeof GATE_CODES;
export const GATE_CODE_NAMES = Object.keys(GATE_CODES) as GateCode[];

/** Whether a finding's code is a built-in gate's (not a pack rule's). */
export function isGateCode(code: string): code is GateCode {
  return Object.hasOwn(GATE_CODES, code);
}

/** A domain pack's rules report as gate `pack.<pack name>` (docs/design.md §4 keys: `pack.<name>:code:task_id:detail`). */
export type PackGateId = `pack.${string}`;
export const PACK_NAME_PATTERN = /^[a-z][a-z0-9-]*$/;
/** A pack rule's gate code: its own namespace inside its pack, never a built-in code. */
export const PACK_CODE_PATTERN = /^[a-z][a-z0-9_]*$/;
export const packGateId = (pack: string): PackGateId => `pack.${pack}`;

const PackGateSchema = z.templateLiteral(["pack.", z.string().regex(PACK_NAME_PATTERN)]);

export const GateFindingSchema = z.strictObject({
  origin: z.literal("gate"),
  gate: z.union([z.enum(GATE_IDS), PackGateSchema]),
  /** A built-in gate code, or a pack rule's code (gate `pack.<name>`). */
  code: z.union([z.enum(GATE_CODE_NAMES as [GateCode, ...GateCode[]]), z.string().regex(PACK_CODE_PATTERN)]),
  family: z.enum(FAMILIES),
  severity: z.literal("blocker"),
  task_id: z.string().nullable(),
  message: z.string(),
  /** `gate:code:task_id:detail`, unique within the plan. */
  key: z.string(),
});
export type GateFinding = z.output<typeof GateFindingSchema>;

/** What a deterministic repair did, recorded beside the gate findings. */
export const RepairNoteSchema = z.strictObject({
  origin: z.literal("repair"),
  repair: z.enum(["topological_reorder", "precondition_closer"]),
  severity: z.literal("info"),
  task_id: z.string().nullable(),
  message: z.string(),
  moved: z.array(z.string()),
});
export type RepairNote = z.output<typeof RepairNoteSchema>;

export const CLAIM_KINDS = [
  "misordered",
  "missing_rollback",
  "missing_verification",
  "unestablished_fact",
  "rollback_requires_destroyed",
  "partial_restore",
  "verification_misordered",
  "tool_unavailable",
  "other",
] as const;

export const EVIDENCE_STATUSES = ["supported", "contradicted", "unsupported_reference", "uncheckable"] as const;
export type EvidenceStatus = (typeof EVIDENCE_STATUSES)[number];

/**
 * The critic's structured-output schema (docs/design.md §5). family, severity and claim are free
 * strings here on purpose: code, not the provider, judges them during normalization.
 */
export const CriticEvidenceSchema = z.object({
  claim: z.string(),
  tasks: z.array(z.string()),
  facts: z.array(z.string()),
});
export const CriticFindingSchema = z.object({
  family: z.string(),
  severity: z.string(),
  task_id: z.string().nullable(),
  message: z.string(),
  suggested_fix: z.string(),
  evidence: CriticEvidenceSchema,
});
export const CriticOutputSchema = z.object({ findings: z.array(CriticFindingSchema) });
export type CriticOutput = z.output<typeof CriticOutputSchema>;

export const NORMALIZATION_RULES = [
  "case_folded",
  "unknown_family",
  "unknown_severity",
  "downgraded_not_blocker_eligible",
  "downgraded_evidence_rejected",
] as const;
export type NormalizationRule = (typeof NORMALIZATION_RULES)[number];

export type CriticEvidence = z.output<typeof CriticEvidenceSchema>;

/** A critic finding after normalization; `raw` keeps what the model said. */
export const NormalizedFindingSchema = z.strictObject({
  origin: z.literal("critic"),
  raw: z.strictObject({ family: z.unknown(), severity: z.unknown() }),
  family: z.string(),
  severity: z.enum(SEVERITIES),
  task_id: z.string().nullable(),
  message: z.string(),
  suggested_fix: z.string().nullable(),
  evidence: CriticEvidenceSchema.nullable(),
  evidence_status: z.enum(EVIDENCE_STATUSES),
  evidence_reason: z.string(),
  normalization: z.array(z.enum(NORMALIZATION_RULES)),
  /** `critic:family:task_id:claim:evidence tasks` (docs/design.md §6). */
  key: z.string(),
});
export type NormalizedFinding = z.output<typeof NormalizedFindingSchema>;
