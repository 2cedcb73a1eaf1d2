import type { Fixture } from "../../src/formats/fixture.ts";
import type { GateFinding, NormalizedFinding } from "../../src/formats/findings.ts";
import { RISK_TOLERANCES, type RiskTolerance } from "../../src/formats/enums.ts";
import { normalizeFinding } from "../../src/critic/normalize.ts";
import { criticVerdict, judgeRound } from "../../src/loop/decide.ts";
import type { CriticAudit } from "../../src/formats/records.ts";

/**
 * What a correct critic says about a fixture: one blocker per seeded defect, on its task, in its
 * intended family, with the claim it should make, normalized and evidence-checked by the engine's
 * own code (docs/design.md §5).
 */
export function correctCriticFindings(f: Fixture): NormalizedFinding[] {
  return f.seeded_defects.flatMap((d) => {
    const finding = normalizeFinding(f.goal, f.plan, {
      family: d.family,
      severity: "blocker",
      task_id: d.task,
      message: `seeded ${d.family} defect on ${d.task}`,
      suggested_fix: "",
      evidence: { claim: d.claim.kind, tasks: d.claim.tasks, facts: d.claim.facts },
    });
    // Only a non-object or an empty message is malformed, and this item is neither.
    return typeof finding === "string" ? [] : [finding];
  });
}

/**
 * A critic-only trial (docs/design.md §6) when the critic is correct, under each tolerance: the full
 * decision (the frozen plan's one round blocks, escalate, or passes, approve, by the engine's
 * judgeRound on the gates' and the correct critic's findings) and the critic's own verdict
 * (criticVerdict: block when one of its blockers blocks).
 */
export function correctVerdicts(
  gateFindings: readonly GateFinding[],
  findings: NormalizedFinding[],
): { verdict: Record<RiskTolerance, "approve" | "escalate">; critic: Record<RiskTolerance, "block" | "pass"> } {
  const audit: CriticAudit = { outcome: "ok", reason: null, raw_text: null, findings, malformed_findings: 0 };
  const perTolerance = <T>(decide: (t: RiskTolerance) => T) => Object.fromEntries(RISK_TOLERANCES.map((t) => [t, decide(t)])) as Record<RiskTolerance, T>;
  return {
    verdict: perTolerance((tolerance) => (judgeRound({ tolerance, gateFindings, audit, carried: [] }).verdict === "pass" ? "approve" : "escalate")),
    // The critic's own say (critic_verdict): its blockers only, whatever the gates found.
    critic: perTolerance((tolerance) => (criticVerdict(audit, tolerance) === "block" ? "block" : "pass")),
  };
}
