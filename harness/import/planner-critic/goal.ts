import { ESCALATION_REASONS, type EscalationReason } from "../../../src/formats/enums.ts";
import { CorpusGoalSchema, type CorpusGoal } from "../../../src/formats/goal.ts";
import { formatPath } from "../../../src/formats/load.ts";
import { note, type ConversionNote } from "./notes.ts";
import type { Assertions, PredecessorGoal } from "./schema.ts";

export interface ConvertedGoal {
  goal: CorpusGoal;
  notes: ConversionNote[];
}

/** Where the goal file sat: its folder under --goals is its domain (the predecessor's layout). */
interface GoalOrigin {
  domain: string | null;
}

const GOAL_KEYS = new Set(["id", "description", "constraints", "risk_tolerance", "replan_policy", "approval_ttl", "metadata"]);
const CONSTRAINT_KEYS = new Set(["budget", "time", "environment", "tools"]);
const MAPPED_INVARIANTS = new Set(["approve_expected", "min_tasks", "mandatory_elements", "acceptable_escalation_reasons"]);

/** Why the predecessor's other assertion keys have no fieldtest expectation. */
const UNMAPPED_REASON: Record<string, string> = {
  max_revisions: "fieldtest expectations have no revision ceiling (the predecessor passed when its round count was at most this)",
  mandatory_blocker_reason_codes: "fieldtest expectations cannot require a blocker; the predecessor's codes have no fieldtest counterpart",
  mandatory_task_attributes: "covered by the gates verification_present and rollback_present, not by an expectation",
  forbidden_findings: "fieldtest forbids blocker families, not findings",
  forbidden_blockers: "fieldtest forbids blocker families, not the predecessor's codes",
};

/**
 * A predecessor goal and its assertions in corpus-goal form (docs/design.md §2). Pure. Every key that
 * has no meaning in fieldtest is named in a note; the returned string is why the goal cannot be
 * imported at all (it then fails fieldtest's own goal schema).
 */
export function convertGoal(source: PredecessorGoal, assertions: Assertions | null, origin: GoalOrigin): ConvertedGoal | string {
  const notes: ConversionNote[] = [];
  const extra = Object.keys(source).filter((k) => !GOAL_KEYS.has(k) && k !== "title");
  if (extra.length > 0) notes.push(note("not_convertible", "goal", `keys the predecessor's model ignored: ${extra.join(", ")}`));
  const title = typeof source.title === "string" && source.title.trim() !== "" ? source.title : source.id;
  if (title === source.id) notes.push(note("not_recorded", "goal.title", "no title: the id stands in"));
  if (origin.domain === null) notes.push(note("not_recorded", "goal.domain", 'the goal file is not in a domain folder: domain "unrecorded"'));
  if (source.risk_tolerance === "permissive")
    notes.push(note("derived", "goal.risk_tolerance", "permissive imported as balanced (the predecessor's code treated them alike)"));
  const c = source.constraints;
  const budgetRounds = c.budget?.max_revisions ?? null;
  if (budgetRounds !== null)
    notes.push(
      note(
        "derived",
        "goal.constraints.budget.max_revisions",
        `${budgetRounds} rounds imported as max_revisions ${budgetRounds - 1} (fieldtest counts revisions)`,
      ),
    );
  for (const k of ["max_tokens", "max_calls"] as const)
    if (c.budget?.[k] != null) notes.push(note("not_convertible", `goal.constraints.budget.${k}`, "no fieldtest goal constraint"));
  for (const k of Object.keys(c).filter((k) => !CONSTRAINT_KEYS.has(k) || k === "time"))
    notes.push(note("not_convertible", `goal.constraints.${k}`, "no fieldtest goal constraint"));
  for (const k of ["approval_ttl", "metadata"] as const)
    if (source[k] !== undefined) notes.push(note("not_convertible", `goal.${k}`, "no fieldtest goal field"));
  const adversarial = source.id.startsWith("adv-");
  notes.push(note("derived", "goal.category", adversarial ? "adversarial: the predecessor corpus names adversarial goals adv-*" : "the risk tolerance"));

  const inv = assertions?.invariants ?? {};
  const expectNotes = expectationNotes(assertions);
  const approve = inv.approve_expected ?? true;
  if (inv.approve_expected === undefined) notes.push(note("derived", "assertions.invariants.approve_expected", "absent: the predecessor's default true"));
  const reasons = inv.acceptable_escalation_reasons ?? [];
  const known = reasons.filter((r): r is EscalationReason => (ESCALATION_REASONS as readonly string[]).includes(r));
  if (known.length < reasons.length)
    notes.push(
      note(
        "not_convertible",
        "assertions.invariants.acceptable_escalation_reasons",
        `not fieldtest reasons: ${reasons.filter((r) => !known.includes(r as EscalationReason)).join(", ")}`,
      ),
    );

  const parsed = CorpusGoalSchema.safeParse({
    id: source.id,
    domain: origin.domain ?? "unrecorded",
    title,
    description: source.description,
    risk_tolerance: source.risk_tolerance === "permissive" ? "balanced" : source.risk_tolerance,
    replan_policy: source.replan_policy,
    constraints: { environment: c.environment ?? null, tools: c.tools, facts: [], max_revisions: budgetRounds === null ? null : budgetRounds - 1 },
    category: adversarial ? "adversarial" : source.risk_tolerance === "strict" ? "strict" : "balanced",
    expect: {
      verdict: approve ? "approve" : "escalate",
      escalation_reasons: known,
      min_tasks: inv.min_tasks !== undefined && inv.min_tasks >= 1 ? inv.min_tasks : null,
      mandatory_elements: inv.mandatory_elements ?? [],
      forbidden_blocker_families: [],
    },
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return `${formatPath(issue.path) || "(root)"}: ${issue.message}`;
  }
  return { goal: parsed.data, notes: [...notes, ...expectNotes] };
}

/** The assertion keys that map to no fieldtest expectation, each with the reason. */
function expectationNotes(assertions: Assertions | null): ConversionNote[] {
  if (assertions === null) return [note("not_recorded", "assertions", "no assertion file: the predecessor's defaults (approve expected)")];
  const notes: ConversionNote[] = [];
  for (const [k, v] of Object.entries(assertions.invariants)) {
    // An empty list or a null asks for nothing, so there is nothing to lose.
    if (MAPPED_INVARIANTS.has(k) || v === null || (Array.isArray(v) && v.length === 0)) continue;
    notes.push(note("not_convertible", `assertions.invariants.${k}`, UNMAPPED_REASON[k] ?? "no fieldtest expectation"));
  }
  for (const k of Object.keys(assertions).filter((k) => k !== "invariants")) notes.push(note("not_convertible", `assertions.${k}`, "no fieldtest expectation"));
  if ((assertions.invariants.mandatory_elements ?? []).length > 0)
    notes.push(
      note(
        "derived",
        "assertions.invariants.mandatory_elements",
        "mapped; the predecessor documented but never enforced it, and synthetic verify tasks count as tasks",
      ),
    );
  if (assertions.invariants.min_tasks !== undefined)
    notes.push(note("derived", "assertions.invariants.min_tasks", "mapped; synthetic verify tasks count as tasks in imported plans"));
  return notes;
}
