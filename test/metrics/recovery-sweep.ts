/**
 * One metric-recovery sweep: every fixture × N critic-only trials on the sim provider, recorded by
 * the sweep runner's own executor (so the trial records have the runner's head fields), then
 * summarized as a run would be.
 */
import { executeTrials, StopControl } from "../../harness/run/execute.ts";
import type { TrialWork } from "../../harness/run/work.ts";
import { hashCanonical } from "../../src/canonical.ts";
import type { Fixture } from "../../src/formats/fixture.ts";
import { trialKey, type TrialRecord } from "../../src/formats/records.ts";
import { runCriticTrial } from "../../src/loop/critic-trial.ts";
import { summarize, type Summary } from "../../src/metrics/summary.ts";
import { createModelClient } from "../../src/providers/client.ts";
import type { SimProfile } from "../../src/sim/profile.ts";

const SIM_ROLE = { provider: "sim", model: "sim-1" } as const;
const CLOCK = new Date("2026-01-01T00:00:00Z");

interface RecoverySweep {
  trials: TrialRecord[];
  summary: Summary;
}

export async function recoverySweep(fixtures: readonly Fixture[], profile: SimProfile, runSeed: number, trialsPerItem: number): Promise<RecoverySweep> {
  const client = createModelClient({ planner: SIM_ROLE, critic: SIM_ROLE, sim: { profile, runSeed } }, { now: () => CLOCK.getTime(), sleep: async () => {} });
  const byId = new Map(fixtures.map((f) => [f.id, f]));
  const itemHash = new Map(fixtures.map((f) => [f.id, hashCanonical(f)]));
  const work: TrialWork[] = fixtures.flatMap((f) =>
    Array.from({ length: trialsPerItem }, (_, trial) => ({
      key: trialKey({ suite: "boundary", item_id: f.id, trial }),
      suite: "boundary" as const,
      item_id: f.id,
      trial,
    })),
  );
  const trials: TrialRecord[] = [];
  await executeTrials({
    trials: work,
    concurrency: 1,
    execute: (w) => runCriticTrial(byId.get(w.item_id)!, { client, itemId: w.item_id, trial: w.trial }),
    itemHash: (w) => itemHash.get(w.item_id)!,
    write: (record) => trials.push(record),
    stop: new StopControl(),
    wasCut: () => false,
    now: () => CLOCK,
  });
  return { trials, summary: summarize({ trials, fixtures, goals: [] }, { seed: runSeed }) };
}
