import { gzipSync } from "node:zlib";
import type { TrialRecord } from "../../src/formats/records.ts";
import { groupTrials } from "../../src/metrics/items.ts";
import type { ItemDetail } from "./triage.ts";

/**
 * The data behind report.html's transcripts: every trial record, whole but for the raw text of
 * answers that were accepted (the round's plan and audit show what they said), with the trial's
 * failed expectation checks. A default sweep's records are megabytes of JSON, so each item's
 * transcripts are gzip-compressed and base64-encoded on their own, and the page decodes an item's
 * only when one of its transcripts opens.
 */

interface Transcript {
  record: TrialRecord;
  /** The trial's failed expectation checks (`name: detail`). */
  failures: string[];
}

function transcriptOf(t: TrialRecord, failures: readonly string[]): Transcript {
  return { record: { ...t, calls: t.calls.map((c) => (c.outcome === "ok" ? { ...c, raw_text: null } : c)) }, failures: [...failures] };
}

/** Item key (`suite/item_id`) → its trials' transcripts, in trial order, gzip-compressed JSON in base64. */
export function transcriptChunks(trials: readonly TrialRecord[], details: readonly ItemDetail[]): Record<string, string> {
  const failures = new Map(details.map((d) => [d.row.key, new Map(d.trials.map((t) => [t.trial, t.failures]))]));
  const chunks: Record<string, string> = {};
  for (const group of groupTrials(trials)) {
    const key = `${group.suite}/${group.item_id}`;
    const list = group.trials.map((t) => transcriptOf(t, failures.get(key)?.get(t.trial) ?? []));
    chunks[key] = gzipSync(JSON.stringify(list), { level: 9 }).toString("base64");
  }
  return chunks;
}
