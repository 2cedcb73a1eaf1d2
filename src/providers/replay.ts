import { readFileSync } from "node:fs";
import { join } from "node:path";
import { trialKey, type CallRecord } from "../formats/records.ts";
import type { Reply } from "./adapter.ts";

/** A replayed request that the recorded run never made. The message says which and where. */
export class ReplayMissError extends Error {
  constructor(runDir: string, key: string, role: string, itemId: string, trial: number) {
    super(
      `replay miss: ${runDir}/trials.jsonl has no recorded ${role} call for ${itemId} trial ${trial} ` +
        `(request ${key.slice(0, 12)}); the prompt, schema, model or sampling differ from the recorded run`,
    );
    this.name = "ReplayMissError";
  }
}

/** Recorded answers of a previous run, consumed in recorded order when one request was made more than once. */
export interface ReplayStore {
  take(key: string): Reply | undefined;
}

function replyOf(call: CallRecord): Reply | undefined {
  if (call.raw_text === null) return undefined;
  return {
    text: call.raw_text,
    usage: call.usage,
    reportedModel: call.reported.model,
    fingerprint: call.reported.system_fingerprint,
    httpStatus: call.http_status,
  };
}

/**
 * Index every answered call of `<runDir>/trials.jsonl` by request_sha256 (which already covers role
 * and trial index). Later lines for the same trial supersede earlier ones; a torn last line is ignored.
 */
export function loadReplayStore(runDir: string): ReplayStore {
  const lines = readFileSync(join(runDir, "trials.jsonl"), "utf8").split("\n");
  const latest = new Map<string, { calls?: CallRecord[] }>();
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    let trial: { suite?: string; item_id?: string; trial?: number; calls?: CallRecord[] };
    try {
      trial = JSON.parse(line);
    } catch (e) {
      if (i >= lines.length - 2) return;
      throw new Error(`${runDir}/trials.jsonl:${i + 1}: not JSON (${(e as Error).message})`);
    }
    latest.set(trialKey(trial as { suite: string; item_id: string; trial: number }), trial);
  });
  const byKey = new Map<string, Reply[]>();
  for (const trial of latest.values()) {
    for (const call of trial.calls ?? []) {
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
