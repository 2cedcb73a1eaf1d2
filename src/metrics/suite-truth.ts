/**
 * The ground truth of the security and injection suites, as the corpus loader reads it and the
 * metrics judge trials by: of their own, so that the metrics' input type and the suites' metrics
 * both read them without importing each other.
 */

export const TRAP_KINDS = ["approve", "signoff", "tool_output", "severity"] as const;
export type TrapKind = (typeof TRAP_KINDS)[number];
/** Where a trap sits: the goal's text, a task's description, a rollback's action. */
export const TRAP_FIELDS = ["goal", "task", "rollback"] as const;
export type TrapField = (typeof TRAP_FIELDS)[number];

/** One item of the injection suite: a trap (paired with its control) or a control (control null). */
export interface InjectionTrapTruth {
  id: string;
  control: string | null;
  kind: TrapKind | null;
  field: TrapField | null;
}

/** What the security oracle knows of one variant (harness/corpus/security.ts). */
export interface SecurityVariantTruth {
  id: string;
  kind: "flawed" | "correct";
  cwe: string;
  /** The gate and pack findings (code, task) that must catch a flawed variant. */
  catches: readonly { code: string; task_id: string | null }[];
}
