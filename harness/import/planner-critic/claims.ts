import type { CriticEvidence } from "../../../src/formats/findings.ts";

/**
 * The prose claim extractor for imported critic findings (METHODOLOGY.md, "Imported critic
 * findings"). The predecessor's critic wrote prose, not structured evidence; this recognises
 * three claims and nothing else, and gives up whenever a message could be read two ways. A
 * finding it does not recognise carries no evidence, so its status is `uncheckable`.
 */
export const CLAIM_EXTRACTOR_VERSION = "prose-claims@1";

interface ExtractedClaim {
  evidence: CriticEvidence;
  /** Which rule matched: ordering_before, ordering_after, missing_rollback, missing_verification. */
  rule: string;
}

interface Mention {
  id: string;
  start: number;
  end: number;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Where the message names a task: its id as a whole word, case-insensitive, where `_`, `-` and
 * `.` in the id may also be written as a space. Overlapping mentions keep the longest.
 */
export function taskMentions(message: string, taskIds: readonly string[]): Mention[] {
  const found: Mention[] = [];
  for (const id of taskIds) {
    const body = id.split(/[_.-]/).map(escape).join("[_.\\- ]");
    const re = new RegExp(`(?<![A-Za-z0-9_])${body}(?![A-Za-z0-9_])`, "gi");
    for (const m of message.matchAll(re)) found.push({ id, start: m.index, end: m.index + m[0].length });
  }
  found.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: Mention[] = [];
  for (const m of found) if (!kept.some((k) => m.start < k.end && k.start < m.end)) kept.push(m);
  return kept.sort((a, b) => a.start - b.start);
}

const BEFORE = /\b(before|precedes|precede|preceding|prior to|ahead of)\b/gi;
const AFTER = /\bafter\b/gi;
const MODAL = /\b(must|should|needs? to|has to|have to|ought to|requires?|required)\b/i;
const NEGATION = /\b(not|never|no longer)\b|n't\b/i;

/**
 * "A … before … B" (A is placed before B) and "A must … after … B" (A has to wait for B): the
 * message names exactly two plan tasks, and the text between the first mention of each holds
 * exactly one ordering word and no negation. The first task named is a, the second b
 * (docs/design.md §5): claim `misordered` [a, b]. The other readings ("A must finish before B",
 * "A runs after B") name the prerequisite first or describe the plan, so they are not extracted.
 */
function orderingClaim(message: string, mentions: Mention[]): ExtractedClaim | null {
  const distinct = [...new Map(mentions.map((m) => [m.id, m])).values()];
  if (distinct.length !== 2) return null;
  const [a, b] = distinct as [Mention, Mention];
  const between = message.slice(a.end, b.start);
  const before = [...between.matchAll(BEFORE)].length;
  const after = [...between.matchAll(AFTER)].length;
  if (before + after !== 1 || NEGATION.test(between)) return null;
  const modal = MODAL.test(between);
  if (before === 1 && !modal) return { rule: "ordering_before", evidence: { claim: "misordered", tasks: [a.id, b.id], facts: [] } };
  if (after === 1 && modal) return { rule: "ordering_after", evidence: { claim: "misordered", tasks: [a.id, b.id], facts: [] } };
  return null;
}

/** "no rollback", "lacks a verification step", "without any rollback plan": the absence ends its clause. */
const absence = (what: string) =>
  new RegExp(
    `\\b(?:no|lacks?|lacking|missing|without|(?:does not|doesn't) (?:have|include|define))\\s+(?:an?\\s+|any\\s+)?${what}(?:\\s+(?:step|plan|task|check|procedure))?\\s*(?:[.,;:!)]|$)`,
    "i",
  );
const MISSING = [
  { claim: "missing_rollback", rule: "missing_rollback", re: absence("rollback") },
  { claim: "missing_verification", rule: "missing_verification", re: absence("verification") },
] as const;

/**
 * The subject of a missing-rollback or missing-verification claim: the one task the message
 * names, or the finding's task_id when it names none; a message that names several is ambiguous.
 */
function missingClaim(message: string, mentions: Mention[], taskId: string | null): ExtractedClaim | null {
  const hits = MISSING.filter((m) => m.re.test(message));
  if (hits.length !== 1) return null;
  const named = [...new Set(mentions.map((m) => m.id))];
  const subject = named.length === 1 ? named[0]! : named.length === 0 ? taskId : null;
  if (subject === null) return null;
  return { rule: hits[0]!.rule, evidence: { claim: hits[0]!.claim, tasks: [subject], facts: [] } };
}

/**
 * The claim a finding's message makes, or null. `taskIds` are the predecessor plan's own task
 * ids (the names the critic saw). A message that matches both an ordering and a missing-step
 * rule is ambiguous and yields null.
 */
export function extractClaim(message: string, taskId: string | null, taskIds: readonly string[]): ExtractedClaim | null {
  const mentions = taskMentions(message, taskIds);
  const ordering = orderingClaim(message, mentions);
  const missing = missingClaim(message, mentions, taskId);
  if (ordering && missing) return null;
  return ordering ?? missing;
}
