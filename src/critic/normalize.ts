import { z } from "zod";
import { BLOCKER_ELIGIBLE_FAMILIES, FAMILIES, SEVERITIES, type Family, type Severity } from "../formats/enums.ts";
import { NORMALIZATION_RULES, type CriticEvidence, type NormalizationRule, type NormalizedFinding } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";
import type { CriticAudit } from "../formats/records.ts";
import { parseStructured } from "../providers/structured-output.ts";
import { checkEvidence } from "./evidence.ts";

/** One entry of the response's findings array: normalized, or dropped as malformed. */
export type CriticItem = { index: number; finding: NormalizedFinding } | { index: number; finding: null; malformed: string; raw: unknown };

/**
 * A critic response read item by item (docs/design.md §5), before it is summed up as an audit. An
 * unusable one keeps the items it had (all malformed, or none when there was no findings array).
 */
type CriticReading = { outcome: "ok"; items: CriticItem[] } | { outcome: "critic_unavailable"; reason: "invalid_output"; detail: string; items: CriticItem[] };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");

/** Lower-cased and trimmed; a non-string has no usable value. */
const fold = (v: unknown): string | null => (typeof v === "string" ? v.trim().toLowerCase() : null);

/** The evidence object as the schema of §5 shapes it, or null when it has another shape. */
function readEvidence(v: unknown): CriticEvidence | null {
  if (!isRecord(v) || typeof v.claim !== "string") return null;
  const tasks = v.tasks ?? [];
  const facts = v.facts ?? [];
  if (!isStringList(tasks) || !isStringList(facts)) return null;
  return { claim: v.claim, tasks, facts };
}

/**
 * The task references a finding wrote that its typed fields drop: a `task_id` that is neither a
 * string nor null, and the `tasks` of an evidence object that has another shape (a number among
 * them, facts that are not a list). Dropping them would hide a ghost task from the reference check.
 */
function strayReferences(item: Record<string, unknown>, evidence: CriticEvidence | null): unknown[] {
  const id = item.task_id;
  const strayId = id === undefined || id === null || typeof id === "string" ? [] : [id];
  const tasks = evidence === null && isRecord(item.evidence) ? item.evidence.tasks : undefined;
  return [...strayId, ...(Array.isArray(tasks) ? tasks : tasks === undefined || tasks === null ? [] : [tasks])];
}

/**
 * `critic:family:task_id:claim:evidence tasks:evidence facts` (docs/design.md §6). The facts are part of
 * the key, so a finding about other facts is another blocker and cannot stand in for this one.
 */
function criticKey(f: Pick<NormalizedFinding, "family" | "task_id" | "evidence">): string {
  const facts = [...(f.evidence?.facts ?? [])].sort().join(",");
  return `critic:${f.family}:${f.task_id ?? ""}:${f.evidence?.claim ?? ""}:${(f.evidence?.tasks ?? []).join(",")}:${facts}`;
}

/**
 * Why an entry of a findings array is malformed and must be dropped (docs/design.md §5); null when it is
 * well-formed. A message of blanks is not empty: dropping it would drop the blocker it carries (its
 * family, severity and evidence are what code judges, never its prose), and with another finding
 * well-formed beside it the audit would read clean.
 */
function malformedReason(item: unknown): string | null {
  if (!isRecord(item)) return "not an object";
  if (typeof item.message !== "string" || item.message === "") return "no non-empty message";
  return null;
}

/**
 * A dropped item that meant to block: an object whose raw severity reads blocker once lower-cased
 * and trimmed (as rule 1 reads it). Code cannot tell on what it meant to block, so the answer fails
 * closed (docs/design.md §5) instead of losing the blocker.
 */
const isMalformedBlocker = (item: unknown): boolean => malformedReason(item) !== null && isRecord(item) && fold(item.severity) === "blocker";

const EVERY_FINDING_MALFORMED = "every finding is malformed (each needs to be an object with a non-empty message)";
const MALFORMED_BLOCKER = "a blocker is malformed, so what it blocks is unknown (each finding needs to be an object with a non-empty message)";

/**
 * Why a findings array is no audit (docs/design.md §5): a malformed blocker among its items, or items
 * of which every one is malformed. null when an audit may rest on it: empty, or with at least one
 * well-formed finding and no malformed blocker.
 */
export function unusableFindings(findings: readonly unknown[]): string | null {
  if (findings.some(isMalformedBlocker)) return MALFORMED_BLOCKER;
  if (findings.length > 0 && findings.every((f) => malformedReason(f) !== null)) return EVERY_FINDING_MALFORMED;
  return null;
}

/**
 * Normalize one finding: the five rules of docs/design.md §5, in order, on the current values, each
 * recorded at most once. Returns a reason string when the item is malformed and must be dropped.
 */
export function normalizeFinding(goal: Goal, plan: Plan, raw: unknown): NormalizedFinding | string {
  const malformed = malformedReason(raw);
  if (malformed !== null) return malformed;
  const item = raw as Record<string, unknown> & { message: string };
  const applied = new Set<NormalizationRule>();
  const rawFamily = item.family;
  const rawSeverity = item.severity;

  // 1. case_folded: accepted only after lower-casing and trimming.
  const family = fold(rawFamily) ?? "";
  const foldedSeverity = fold(rawSeverity);
  const knownFamily = (FAMILIES as readonly string[]).includes(family);
  const knownSeverity = foldedSeverity !== null && (SEVERITIES as readonly string[]).includes(foldedSeverity);
  if ((knownFamily && rawFamily !== family) || (knownSeverity && rawSeverity !== foldedSeverity)) applied.add("case_folded");
  let severity: Severity | "unknown" = knownSeverity ? (foldedSeverity as Severity) : "unknown";

  // 2. unknown_family: kept, capped at warning.
  if (!knownFamily) {
    applied.add("unknown_family");
    if (severity === "blocker") severity = "warning";
  }
  // 3. unknown_severity: becomes warning.
  if (severity === "unknown") {
    applied.add("unknown_severity");
    severity = "warning";
  }
  // 4. Only four families may block.
  if (severity === "blocker" && !BLOCKER_ELIGIBLE_FAMILIES.includes(family as Family)) {
    applied.add("downgraded_not_blocker_eligible");
    severity = "warning";
  }
  const task_id = typeof item.task_id === "string" ? item.task_id : null;
  const evidence = readEvidence(item.evidence);
  const checked = checkEvidence(goal, plan, { task_id, evidence, strayReferences: strayReferences(item, evidence) });
  // 5. A blocker whose premise the plan refutes is not a blocker.
  if (severity === "blocker" && (checked.status === "contradicted" || checked.status === "unsupported_reference")) {
    applied.add("downgraded_evidence_rejected");
    severity = "warning";
  }
  return {
    origin: "critic",
    raw: { family: rawFamily, severity: rawSeverity },
    family,
    severity,
    task_id,
    message: item.message,
    suggested_fix: typeof item.suggested_fix === "string" ? item.suggested_fix : null,
    evidence,
    evidence_status: checked.status,
    evidence_reason: checked.reason,
    normalization: NORMALIZATION_RULES.filter((r) => applied.has(r)),
    key: criticKey({ family, task_id, evidence }),
  };
}

const unusable = (detail: string, items: CriticItem[] = []): CriticReading => ({ outcome: "critic_unavailable", reason: "invalid_output", detail, items });

/**
 * Read a findings array item by item: a bad item is dropped and counted alone, unless every one
 * is bad or a bad one is a blocker, which makes the whole response unusable.
 */
function readFindings(goal: Goal, plan: Plan, findings: readonly unknown[]): CriticReading {
  const items = findings.map((raw, index): CriticItem => {
    const result = normalizeFinding(goal, plan, raw);
    return typeof result === "string" ? { index, finding: null, malformed: result, raw } : { index, finding: result };
  });
  // One rule for a clean audit or an unusable answer: the envelope check's (src/critic/critic.ts).
  const unusableBecause = unusableFindings(findings);
  return unusableBecause === null ? { outcome: "ok", items } : unusable(unusableBecause, items);
}

/**
 * Read a critic's raw answer item by item. A text that is not JSON or a JSON value without a
 * `findings` array make the whole response unusable; otherwise its findings are read as readFindings does.
 */
export function readCriticResponse(goal: Goal, plan: Plan, rawText: string | null): CriticReading {
  if (rawText === null) return unusable("no response text");
  // The same reading the client gives an answer (a Markdown fence around the JSON is not part of it).
  const json = parseStructured(rawText, z.unknown());
  if (!json.ok) return unusable("the response is not JSON");
  const parsed = json.value;
  if (!isRecord(parsed) || !Array.isArray(parsed.findings)) return unusable("the response has no findings array");
  return readFindings(goal, plan, parsed.findings);
}

type UnavailableReason = "invalid_output" | "provider_error" | "budget_exceeded";

/** An audit that produced no usable answer: its own outcome, never a clean audit. */
export function unavailableAudit(reason: UnavailableReason, rawText: string | null, malformedFindings = 0): CriticAudit {
  return { outcome: "critic_unavailable", reason, raw_text: rawText, findings: [], malformed_findings: malformedFindings };
}

/** The items of a reading dropped as malformed (a well-formed item of an unusable answer is not one). */
export const malformedCount = (reading: CriticReading): number => reading.items.filter((i) => i.finding === null).length;

/** A reading summed up as an audit that keeps the raw text. */
function auditOf(reading: CriticReading, rawText: string | null): CriticAudit {
  if (reading.outcome === "critic_unavailable") return unavailableAudit(reading.reason, rawText, malformedCount(reading));
  const findings = reading.items.flatMap((i) => (i.finding ? [i.finding] : []));
  return { outcome: "ok", reason: null, raw_text: rawText, findings, malformed_findings: malformedCount(reading) };
}

/** Normalize a critic's raw answer into an audit (docs/design.md §5). Pure; keeps the raw text. */
export function normalizeCriticResponse(goal: Goal, plan: Plan, rawText: string | null): CriticAudit {
  return auditOf(readCriticResponse(goal, plan, rawText), rawText);
}

/** The same for an answer already parsed into its findings array (by the client): no second parse. */
export function normalizeCriticFindings(goal: Goal, plan: Plan, findings: readonly unknown[], rawText: string): CriticAudit {
  return auditOf(readFindings(goal, plan, findings), rawText);
}

/** How often each normalization rule fired over a set of findings (for the metrics). */
export function countNormalizationRules(findings: readonly NormalizedFinding[]): Record<NormalizationRule, number> {
  const counts = Object.fromEntries(NORMALIZATION_RULES.map((r) => [r, 0])) as Record<NormalizationRule, number>;
  for (const f of findings) for (const r of f.normalization) counts[r]++;
  return counts;
}
