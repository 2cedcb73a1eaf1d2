import { z } from "zod";

/** Enum accepted after lower-casing (docs/design.md §3 field rules); anything else is invalid. */
export function lowerEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess((v) => (typeof v === "string" ? v.toLowerCase() : v), z.enum(values));
}

export const FAMILIES = ["feasibility", "risk", "missing_steps", "unsafe_sequencing", "unverified_dependencies", "weak_rollback"] as const;
export type Family = (typeof FAMILIES)[number];

/** Families in which a critic blocker may block (docs/design.md §5 rule 4). */
export const BLOCKER_ELIGIBLE_FAMILIES: readonly Family[] = ["unsafe_sequencing", "weak_rollback", "unverified_dependencies", "feasibility"];

export const SEVERITIES = ["blocker", "warning", "info"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const TASK_KINDS = ["mutate", "verify", "read", "notify", "wait", "approve"] as const;

export const LEVELS = ["low", "medium", "high", "critical"] as const;
export type Level = (typeof LEVELS)[number];

export const REVERSIBILITY = ["reversible", "irreversible"] as const;
export const VERIFY_SUBJECTS = ["pre_state", "constraint", "mutation_output"] as const;

export const RISK_TOLERANCES = ["strict", "balanced"] as const;
export type RiskTolerance = (typeof RISK_TOLERANCES)[number];

export const REPLAN_POLICIES = ["patch", "restart", "abort"] as const;
export type ReplanPolicy = (typeof REPLAN_POLICIES)[number];

export const CATEGORIES = ["balanced", "strict", "adversarial"] as const;
export type Category = (typeof CATEGORIES)[number];

export const ESCALATION_REASONS = [
  "budget_exceeded",
  "replan_aborted",
  "regression_thrashing",
  "converged_stalled",
  "plan_oscillation_detected",
  "revision_cap_reached",
  // Critic-only trials: a frozen plan names who blocked it, never a loop reason.
  "gate_blocked",
  "critic_blocked",
  "critic_unavailable",
  "planner_unavailable",
] as const;
export type EscalationReason = (typeof ESCALATION_REASONS)[number];
