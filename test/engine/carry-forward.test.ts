import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../src/formats/plan.ts";
import type { EngineOutcome } from "../../src/formats/records.ts";
import { runEngine } from "../../src/loop/engine.ts";
import {
  CLEAN_AUDIT,
  criticAnswer,
  goal,
  NO_CHECK_ON_LOGS,
  NO_ROLLBACK_ON_CACHE,
  planAnswer,
  WITH_CACHE,
  WITH_CACHE_LOW_LOGS,
  WITHOUT_CACHE,
} from "./fixtures.ts";
import { ScriptedClient, type ScriptEntry } from "./scripted-client.ts";

/** WITHOUT_CACHE with a gate defect: a round on it is gate-blocked, so the critic does not run. */
const GATE_BLOCKED_WITHOUT_CACHE: Plan = { ...WITHOUT_CACHE, tasks: WITHOUT_CACHE.tasks.map((t) => (t.id === "migrate" ? { ...t, rollback: undefined } : t)) };
// Few plans and answers, so that sequences that leave a plan and come back to it are common.
const PLANS = [WITH_CACHE, WITHOUT_CACHE, GATE_BLOCKED_WITHOUT_CACHE, WITH_CACHE_LOW_LOGS];
const AUDITS: ScriptEntry[] = [CLEAN_AUDIT, criticAnswer(NO_ROLLBACK_ON_CACHE), criticAnswer(NO_CHECK_ON_LOGS), criticAnswer({ family: "feasibility" })];

/** Run the engine on random scripts of the plans and audits above, under either tolerance, and check each outcome. */
async function forRandomScripts(numRuns: number, check: (outcome: EngineOutcome) => void): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.nat(PLANS.length - 1), { minLength: 1, maxLength: 4 }),
      fc.array(fc.nat(AUDITS.length - 1), { minLength: 4, maxLength: 4 }),
      fc.constantFrom("strict" as const, "balanced" as const),
      async (plans, audits, tolerance) => {
        const client = new ScriptedClient({ planner: plans.map((i) => planAnswer(PLANS[i]!)), critic: audits.map((i) => AUDITS[i]!) });
        // A script shorter than the loop ends in a planner failure: the rounds before it still hold the law.
        const outcome = await runEngine(goal({ risk_tolerance: tolerance }), { client, itemId: "item", trial: 0 }, { maxRounds: 4 }).catch(() => null);
        if (outcome !== null) check(outcome);
      },
    ),
    { numRuns },
  );
}

describe("carry-forward law", () => {
  it("a plan a supported critic blocker blocked keeps that blocker in every later round of the same structure, whatever the critic says then", async () => {
    await forRandomScripts(500, (outcome) => {
      outcome.rounds.forEach((earlier, i) => {
        const supported = [...(earlier.critic?.outcome === "ok" ? earlier.critic.findings : []), ...earlier.carried_forward]
          .filter((f) => f.evidence_status === "supported" && earlier.blocker_keys.includes(f.key))
          .map((f) => f.key);
        for (const later of outcome.rounds.slice(i + 1)) {
          if (later.structural_hash !== earlier.structural_hash) continue;
          for (const key of supported) expect(later.blocker_keys, `round ${later.index} on round ${earlier.index}'s plan`).toContain(key);
          // (An uncheckable blocker is cleared by a silent audit: only a supported one is owed.)
          if (supported.length > 0) expect(later.decision).not.toBe("approve");
        }
      });
    });
  });

  it("a round records as lapsed exactly the critic blockers in force after the previous round that cite a task its plan lacks, each with that task", async () => {
    let lapses = 0;
    await forRandomScripts(300, (outcome) => {
      outcome.rounds.forEach((round, i) => {
        const previous = outcome.rounds[i - 1];
        const ids = new Set(round.plan.tasks.map((t) => t.id));
        const inForce = previous
          ? [...(previous.critic?.outcome === "ok" ? previous.critic.findings : []), ...previous.carried_forward].filter((f) =>
              previous.blocker_keys.includes(f.key),
            )
          : [];
        const expected = inForce
          .filter((f, k) => inForce.findIndex((g) => g.key === f.key) === k)
          .flatMap((f) => {
            const gone = [f.task_id, ...(f.evidence?.tasks ?? [])].find((id) => id !== null && !ids.has(id));
            return gone === undefined ? [] : [{ key: f.key, task_id: gone }];
          });
        expect(round.carry_forward_lapsed, `round ${i}`).toEqual(expected);
        lapses += expected.length;
      });
    });
    // The sample drops the task of a blocker often enough that the law is not empty.
    expect(lapses).toBeGreaterThan(0);
  });
});
