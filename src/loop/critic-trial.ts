import { runCritic } from "../critic/critic.ts";
import type { Fixture } from "../formats/fixture.ts";
import type { EngineOutcome } from "../formats/records.ts";
import { runGates } from "../gates/index.ts";
import type { CompiledPack } from "../packs/compile.ts";
import type { ModelClient } from "../providers/types.ts";
import { criticVerdict } from "./decide.ts";
import { engineOutcome } from "./outcome.ts";
import { closeRound } from "./round.ts";

interface CriticTrialDeps {
  client: ModelClient;
  itemId: string;
  trial: number;
}

/**
 * A critic-only trial on a boundary fixture (docs/design.md §6): the frozen plan is gated (no repairs:
 * it is frozen), the critic reviews it whatever the gates say, with the gate findings in its
 * context. `critic_verdict` is the critic's own say under the fixture goal's tolerance; `verdict`
 * is the full decision of a single round that cannot be revised, so an escalation names who
 * blocked (gate_blocked, critic_blocked) or critic_unavailable, never a loop reason. Enabled packs
 * gate it too.
 */
export async function runCriticTrial(fixture: Fixture, deps: CriticTrialDeps, packs: readonly CompiledPack[] = []): Promise<EngineOutcome> {
  const { goal, plan } = fixture;
  const gated = { plan, findings: runGates(goal, plan, { packs }), notes: [] };
  const { audit, calls, providerError } = await runCritic(goal, plan, gated.findings, { ...deps, round: 0, fixture });
  const closed = closeRound({ index: 0, goal, gated, audit, inForce: [], loop: null });
  return engineOutcome([closed.record], calls, closed.reasons, criticVerdict(audit, goal.risk_tolerance), providerError);
}
