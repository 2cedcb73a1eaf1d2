import type { RiskTolerance } from "../formats/enums.ts";
import type { GateFinding, NormalizedFinding } from "../formats/findings.ts";
import type { CriticAudit, CriticVerdict } from "../formats/records.ts";

/**
 * Does a normalized critic finding block (docs/design.md §6)? Only blockers can. Under strict a blocker
 * blocks unless its evidence was rejected; under balanced only supported evidence blocks. The
 * evidence guard also covers carried-forward blockers, whose evidence is re-checked on each plan.
 */
export function criticBlocks(finding: NormalizedFinding, tolerance: RiskTolerance): boolean {
  if (finding.severity !== "blocker") return false;
  if (tolerance === "balanced") return finding.evidence_status === "supported";
  return finding.evidence_status !== "contradicted" && finding.evidence_status !== "unsupported_reference";
}

type RoundVerdict = "pass" | "blocked" | "critic_unavailable";

interface RoundInput {
  tolerance: RiskTolerance;
  /** Gate findings after repairs; every one is a blocker. */
  gateFindings: readonly GateFinding[];
  /** null when the critic did not run this round. */
  audit: CriticAudit | null;
  /** Earlier critic blockers still in force on this plan. */
  carried: readonly NormalizedFinding[];
}

interface RoundJudgement {
  verdict: RoundVerdict;
  /** Critic findings that block this round, one per key: this audit's, then the carried ones. */
  criticBlockers: NormalizedFinding[];
  /** Keys of every blocker that blocks, gate first, each once. */
  blockerKeys: string[];
}

/**
 * Judge one round (docs/design.md §6): a gate blocker always blocks; a critic blocker blocks as
 * `criticBlocks` says; warnings and info never block; an unavailable critic fails closed.
 */
export function judgeRound(input: RoundInput): RoundJudgement {
  const fresh = input.audit?.outcome === "ok" ? input.audit.findings.filter((f) => criticBlocks(f, input.tolerance)) : [];
  // A critic that repeats a finding in one answer raised one blocker: the planner is asked to fix it once.
  const criticBlockers: NormalizedFinding[] = [];
  for (const f of [...fresh, ...input.carried]) if (!criticBlockers.some((b) => b.key === f.key)) criticBlockers.push(f);
  const blockerKeys = [...new Set([...input.gateFindings.map((f) => f.key), ...criticBlockers.map((f) => f.key)])];
  const verdict: RoundVerdict = input.audit?.outcome === "critic_unavailable" ? "critic_unavailable" : blockerKeys.length > 0 ? "blocked" : "pass";
  return { verdict, criticBlockers, blockerKeys };
}

/** A critic-only trial's verdict of the critic alone: does any of its own blockers block? */
export function criticVerdict(audit: CriticAudit, tolerance: RiskTolerance): CriticVerdict {
  if (audit.outcome === "critic_unavailable") return "unavailable";
  return audit.findings.some((f) => criticBlocks(f, tolerance)) ? "block" : "pass";
}
