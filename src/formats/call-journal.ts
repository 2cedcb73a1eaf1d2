import { z } from "zod";
import { CallRecordSchema } from "./records.ts";

export const CALL_JOURNAL_SCHEMA_VERSION = 1;

/** One line of a run's call journal (`calls.jsonl`): a call of a billed provider as its trial will record it, written as it completes. */
export const CallJournalLineSchema = z.strictObject({
  schema_version: z.literal(CALL_JOURNAL_SCHEMA_VERSION),
  session: z.string(),
  trial_key: z.string(),
  call: CallRecordSchema,
  /** Why the call got no answer, in the transport failure's own words (null for an answer). */
  failure: z.string().nullable(),
});
export type CallJournalLine = z.output<typeof CallJournalLineSchema>;
