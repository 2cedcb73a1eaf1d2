import type { CallRecord } from "../formats/records.ts";
import type { Reply } from "./adapter.ts";

/** A replayed request that the recorded run never made. The message says which and where. */
export class ReplayMissError extends Error {
  constructor(runDir: string, key: string, role: string, itemId: string, trial: number) {
    super(
      `replay miss: the run ${runDir} has no recorded ${role} call for ${itemId} trial ${trial} ` +
        `(request ${key.slice(0, 12)}); the prompt, schema, model or sampling differ from the recorded run`,
    );
    this.name = "ReplayMissError";
  }
}

/** Recorded answers of a previous run, consumed in recorded order when one request was made more than once. */
export interface ReplayStore {
  take(key: string): Reply | undefined;
}

/** The recorded trials of a replayed run, one per trial key (the harness reads them; the engine never reads run folders). */
export type RecordedTrials = Iterable<{ calls: readonly CallRecord[] }>;

/** A recorded call's answer as a provider's reply; undefined when it got none. */
export function replyOf(call: CallRecord): Reply | undefined {
  if (call.raw_text === null) return undefined;
  return {
    text: call.raw_text,
    usage: call.usage,
    reportedModel: call.reported.model,
    fingerprint: call.reported.system_fingerprint,
    httpStatus: call.http_status,
    // Recorded as the rejection itself, so a replay rejects it alike.
    incomplete: call.error_class === "incomplete" ? call.validation_error : null,
  };
}

/** Index every answered call of the recorded trials by request_sha256 (which already covers role and trial index). */
export function createReplayStore(trials: RecordedTrials): ReplayStore {
  const byKey = new Map<string, Reply[]>();
  for (const trial of trials) {
    for (const call of trial.calls) {
      const reply = replyOf(call);
      if (!reply) continue;
      const queue = byKey.get(call.request_sha256) ?? [];
      queue.push(reply);
      byKey.set(call.request_sha256, queue);
    }
  }
  return {
    take(key) {
      const queue = byKey.get(key);
      if (!queue || queue.length === 0) return undefined;
      // The last recorded answer keeps serving once the queue is down to it.
      return queue.length > 1 ? queue.shift() : queue[0];
    },
  };
}
