import type { TrialRecord } from "../../src/formats/records.ts";

/**
 * The exit-3 rule of `fieldtest run` (docs/design.md §6, §9): a trial whose provider never answered is
 * an `error` that measured nothing, so a run most of whose trials are errors is an infrastructure
 * failure, not a run of verdicts. Returns the one line that says so, naming the first error
 * (which names the endpoint, recorded without credentials), or null when at most half erred.
 */
export function mostlyErrors(records: readonly Pick<TrialRecord, "status" | "error">[]): string | null {
  const errors = records.filter((r) => r.status === "error");
  if (errors.length * 2 <= records.length) return null;
  const first = (errors.find((r) => r.error !== null)?.error ?? "no error recorded").replace(/\s+/g, " ");
  return `${errors.length} of ${records.length} trials are errors, so the run measured next to nothing (first: ${first})`;
}
