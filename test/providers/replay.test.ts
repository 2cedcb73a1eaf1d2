import { describe, expect, it } from "vitest";
import { CriticOutputSchema } from "../../src/formats/findings.ts";
import type { CallRecord } from "../../src/formats/records.ts";
import { createModelClient, type ClientConfig, type ClientDeps } from "../../src/providers/client.ts";
import { createReplayStore, ReplayMissError } from "../../src/providers/replay.ts";
import { parseStructured } from "../../src/providers/structured-output.ts";
import { loadSimProfile, PROFILES_DIR } from "../../src/sim/profile.ts";
import { templatePlan } from "../../src/sim/planner.ts";
import { fakeClock } from "./helpers.ts";
import { criticExtra, GOAL, simRequest } from "./sim-fixtures.ts";

const noisy = loadSimProfile(`${PROFILES_DIR}noisy.yaml`);
const plan = templatePlan(GOAL, new Set(["weak_rollback"]), 1, null);
const live: ClientConfig = {
  planner: { provider: "sim", model: "sim-planner-1" },
  critic: { provider: "sim", model: "sim-critic-1" },
  sim: { profile: noisy, runSeed: 5 },
};

/** The recorded calls of `trials` critic trials, as the harness hands them to a replaying client. */
async function recordedRun(trials: number): Promise<{ dir: string; calls: CallRecord[][]; deps: ClientDeps }> {
  const client = createModelClient(live, fakeClock());
  const calls: CallRecord[][] = [];
  for (let trial = 0; trial < trials; trial++) {
    const r = await client.structured(simRequest("critic", criticExtra(plan), { trial }), CriticOutputSchema);
    calls.push(r.calls);
  }
  const dir = "runs/recorded";
  const recordedTrials = (runDir: string) => {
    expect(runDir).toBe(dir);
    return calls.map((c) => ({ calls: c }));
  };
  return { dir, calls, deps: { ...fakeClock(), recordedTrials } };
}

const replaying = (dir: string, fallThrough = false): ClientConfig => ({
  ...live,
  critic: { provider: "replay", model: "sim-critic-1", replay: { runDir: dir, as: "sim", fallThrough } },
});

describe("replay provider", () => {
  it("answers every recorded trial with its recorded text", async () => {
    const { dir, calls, deps } = await recordedRun(6);
    const client = createModelClient(replaying(dir), deps);
    for (let trial = 0; trial < 6; trial++) {
      const r = await client.structured(simRequest("critic", criticExtra(plan), { trial }), CriticOutputSchema);
      expect(r.calls.map((c) => [c.request_sha256, c.raw_text])).toEqual(calls[trial]!.map((c) => [c.request_sha256, c.raw_text]));
      expect(r.calls.every((c) => c.cached && c.transport_attempts.length === 0)).toBe(true);
      expect(r.calls[0]!.context.provider).toBe("sim");
    }
  });

  it("fails a miss with a clear error", async () => {
    const { dir, deps } = await recordedRun(1);
    const client = createModelClient(replaying(dir), deps);
    await expect(client.structured(simRequest("critic", criticExtra(plan), { trial: 7 }), CriticOutputSchema)).rejects.toThrow(ReplayMissError);
    await expect(client.structured(simRequest("critic", criticExtra(plan), { trial: 7 }), CriticOutputSchema)).rejects.toThrow(
      /replay miss: the run runs\/recorded has no recorded critic call for db-split-tenants trial 7/,
    );
  });

  it("falls through to the live provider on a miss when asked to", async () => {
    const { dir, deps } = await recordedRun(1);
    const client = createModelClient(replaying(dir, true), deps);
    const r = await client.structured(simRequest("critic", criticExtra(plan), { trial: 7 }), CriticOutputSchema);
    expect(r.calls[0]!.cached).toBe(false);
    expect(r.calls[0]!.transport_attempts).toHaveLength(1);
  });

  it("reads a run that both roles replay once, and each role still answers from it", async () => {
    const { dir, calls, deps } = await recordedRun(2);
    let reads = 0;
    const client = createModelClient(
      { ...replaying(dir), planner: { provider: "replay", model: "sim-planner-1", replay: { runDir: dir, as: "sim", fallThrough: false } } },
      { ...deps, recordedTrials: (runDir) => (reads++, deps.recordedTrials!(runDir)) },
    );
    expect(reads).toBe(1);
    const r = await client.structured(simRequest("critic", criticExtra(plan), { trial: 1 }), CriticOutputSchema);
    expect(r.calls.map((c) => c.raw_text)).toEqual(calls[1]!.map((c) => c.raw_text));
  });

  it("replays an answer its provider ended early as rejected, as it was, though its text parses", async () => {
    const { calls } = await recordedRun(1);
    const rejection = "the answer ended before it was complete (stop_reason max_tokens: the output limit)";
    const cut: CallRecord = {
      ...calls[0]![0]!,
      raw_text: '{"findings": []}',
      outcome: "invalid_output",
      error_class: "incomplete",
      validation_error: rejection,
    };
    const reply = createReplayStore([{ calls: [cut] }]).take(cut.request_sha256)!;
    expect(reply.incomplete).toBe(rejection);
    expect(parseStructured(reply.text, CriticOutputSchema, reply.incomplete)).toEqual({ ok: false, errorClass: "incomplete", error: rejection });
    // An answer that finished replays as finished.
    expect(createReplayStore([{ calls: calls[0]! }]).take(calls[0]![0]!.request_sha256)!.incomplete).toBeNull();
  });

  it("rejects a replay role without replay settings", () => {
    expect(() => createModelClient({ ...live, critic: { provider: "replay", model: "x" } }, fakeClock())).toThrow(/replay/);
  });
});
