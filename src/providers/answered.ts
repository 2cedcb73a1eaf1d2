import type { CallRecord } from "../formats/records.ts";

/** A call an earlier session made and journaled (harness/run/call-journal.ts): its record, and why it failed when it got no answer. */
export interface JournaledCall {
  call: CallRecord;
  /** The transport failure's own message (null for an answer). */
  failure: string | null;
}

/**
 * What the earlier sessions of a resumed run already bought for the trials they did not finish:
 * taken by trial and request hash, in the order they were made, each once. A resumed trial's
 * requests are its recorded ones as long as its answers are (the same prompts, in the same
 * order), so it is answered from here until it reaches the call that was in flight.
 */
export interface AnsweredCalls {
  take(trialKey: string, requestSha256: string): JournaledCall | undefined;
}

export function answeredCalls(byTrial: ReadonlyMap<string, readonly JournaledCall[]>): AnsweredCalls {
  const left = new Map<string, JournaledCall[]>();
  return {
    take(trialKey, requestSha256) {
      let calls = left.get(trialKey);
      if (calls === undefined) {
        const journaled = byTrial.get(trialKey);
        if (journaled === undefined) return undefined;
        left.set(trialKey, (calls = [...journaled]));
      }
      const i = calls.findIndex((c) => c.call.request_sha256 === requestSha256);
      return i === -1 ? undefined : calls.splice(i, 1)[0];
    },
  };
}
