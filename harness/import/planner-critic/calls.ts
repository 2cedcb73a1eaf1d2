import { hashCanonical, sha256 } from "../../../src/canonical.ts";
import type { CallRecord } from "../../../src/formats/records.ts";
import { incompleteFinish } from "../../../src/providers/incomplete.ts";
import type { LogEntry } from "./schema.ts";

/** Stands where docs/design.md §7 wants a hash the predecessor's log cannot give (never a made-up hash). */
export const NOT_RECORDED = "not_recorded";

/** Request fields the predecessor's LoggingProvider did not write (predecessor-notes.md §7.4): null or NOT_RECORDED. */
export const CALL_FIELDS_NOT_RECORDED = [
  "context.base_url",
  "context.temperature",
  "context.top_p",
  "context.seed",
  "context.max_tokens",
  "context.user_template_sha256",
  "context.schema_sha256",
  "context.sdk",
  "context.sdk_version",
  "reported.model",
  "reported.system_fingerprint",
  "usage",
  "cost_usd",
  "http_status",
] as const;

/** Values that come from the predecessor's code, not from its log (§7.2: one transport, always json_object). */
const CALL_FIELDS_INFERRED = [
  "context.provider: openai, the wire format of the predecessor's only transport (OpenAI-compatible)",
  "context.response_format: json_object, which that transport always sends",
] as const;

/** A call as the predecessor logged it: the call record plus the messages and what the log lacked. */
export interface ImportedCallRecord extends CallRecord {
  messages: { role: string; content: string }[];
  /** The log's timestamp (written when the call returned). */
  logged_at: string;
  not_recorded: string[];
  inferred: string[];
}

interface CallPlace {
  round: number;
  attempt: number;
  trial: number;
  /** How the predecessor's parser took the answer; an `error` entry is an error whatever this says. */
  outcome: "ok" | "invalid_output";
}

const textOf = (entry: LogEntry, role: string) => entry.prompt_messages.filter((m) => m.role === role).map((m) => m.content);

/** SHA-256 of a logged call's system messages, or NOT_RECORDED when it logged none. */
export function systemPromptHash(entry: LogEntry): string {
  const system = textOf(entry, "system");
  return system.length === 0 ? NOT_RECORDED : sha256(system.join("\n"));
}

/** One logged call as a CallRecord (docs/design.md §7): hashes from the logged messages, unlogged fields null and listed. Pure. */
export function toCallRecord(entry: LogEntry, place: CallPlace): ImportedCallRecord {
  const system = textOf(entry, "system");
  const user = textOf(entry, "user");
  const latency = Math.round(entry.duration_seconds * 1000);
  const incomplete = entry.error === null ? incompleteFinish(entry.finish_reason) : null;
  const errorClass = entry.error !== null ? entry.error.split(":")[0]!.trim() || "error" : incomplete !== null ? "incomplete" : null;
  const missing: string[] = [...CALL_FIELDS_NOT_RECORDED];
  if (system.length === 0) missing.push("context.system_prompt_sha256");
  if (user.length === 0) missing.push("context.user_prompt_sha256");
  return {
    role: entry.role,
    round: place.round,
    request_sha256: hashCanonical({
      source: "planner-critic-0.1.0",
      model: entry.model,
      messages: entry.prompt_messages,
      role: entry.role,
      trial: place.trial,
    }),
    attempt: place.attempt,
    context: {
      provider: "openai",
      base_url: null,
      model: entry.model,
      temperature: null,
      top_p: null,
      seed: null,
      max_tokens: null,
      response_format: "json_object",
      system_prompt_sha256: systemPromptHash(entry),
      user_template_sha256: NOT_RECORDED,
      user_prompt_sha256: user.length === 0 ? NOT_RECORDED : sha256(user.join("\n")),
      schema_sha256: null,
      sdk: null,
      sdk_version: null,
    },
    reported: { model: null, system_fingerprint: null },
    model_mismatch: null,
    usage: null,
    cost_usd: null,
    latency_ms: latency,
    outcome: entry.error !== null ? "error" : place.outcome,
    error_class: errorClass,
    http_status: null,
    transport_attempts: [
      {
        index: 0,
        latency_ms: latency,
        outcome: entry.error === null ? "ok" : "error",
        error_class: entry.error === null ? null : errorClass,
        http_status: null,
      },
    ],
    raw_text: entry.response_content,
    // The predecessor resent identical messages on a retry: nothing was fed back. An answer the API
    // ended early is rejected here as a live run rejects it.
    validation_error: incomplete,
    cached: false,
    messages: entry.prompt_messages.map(({ role, content }) => ({ role, content })),
    logged_at: entry.timestamp,
    not_recorded: missing,
    inferred: [...CALL_FIELDS_INFERRED],
  };
}
