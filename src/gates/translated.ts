import type { GateFinding } from "../formats/findings.ts";

/**
 * Gate findings on a plan a translator converted from another engine's format: a finding whose
 * task is one the translator invented rests on that task alone, so it is set aside (kept in the
 * record, never counted); the rest count as any gate finding does.
 */
export function setAsideTranslated(findings: readonly GateFinding[], translatedTasks: ReadonlySet<string>): { counted: GateFinding[]; setAside: GateFinding[] } {
  const counted: GateFinding[] = [];
  const setAside: GateFinding[] = [];
  for (const f of findings) (f.task_id !== null && translatedTasks.has(f.task_id) ? setAside : counted).push(f);
  return { counted, setAside };
}
