import type { GateFinding } from "../formats/findings.ts";

/** Gate findings split by whether they rest on what the engine planned or on what a translator made up. */
interface TranslatedSplit {
  /** Findings on the engine's own tasks (or the plan as a whole): these decide blocker keys and metrics. */
  counted: GateFinding[];
  /** Findings whose task a translator invented: kept in the record, never a blocker. */
  setAside: GateFinding[];
}

/**
 * Split gate findings on a translated plan (an import, or an adapter for an external engine's
 * format). A finding is set aside when its task is one the translator invented, since it then
 * rests on that task alone: the translator, not the engine, wrote what the gate judged. Pure;
 * order is kept within each part.
 */
export function setAsideTranslated(findings: readonly GateFinding[], translatedTasks: Iterable<string>): TranslatedSplit {
  const invented = new Set(translatedTasks);
  const counted: GateFinding[] = [];
  const setAside: GateFinding[] = [];
  for (const f of findings) (f.task_id !== null && invented.has(f.task_id) ? setAside : counted).push(f);
  return { counted, setAside };
}
