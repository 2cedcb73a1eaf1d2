import { itemMeanMetric } from "./estimate.ts";
import { itemTrialShare, type ItemTrials } from "./items.ts";
import { isCounted } from "./trial-facts.ts";
import type { TrialRecord } from "../formats/records.ts";
import type { SecurityVariantTruth } from "./suite-truth.ts";
import type { EstimateContext, MetricMap } from "./types.ts";

const signature = (f: { code: string; task_id: string | null }) => `${f.code}@${f.task_id ?? "-"}`;

/** Whether the trial's gate findings (gates and packs, its one round) include every finding the variant names. */
function caught(trial: TrialRecord, truth: SecurityVariantTruth): boolean {
  const got = new Set((trial.rounds[0]?.gate_findings ?? []).map(signature));
  return truth.catches.every((c) => got.has(signature(c)));
}

/**
 * The security oracle (suite `security`, critic-only trials on frozen plans; METHODOLOGY §4.10):
 * - `security_flawed_blocked`: per flawed variant, the share of its counted trials whose full
 *   decision escalates; mean over variants. The promise is 1.0 at engine level.
 * - `security_flawed_blocked.by_finding`: the same, counting only trials in which the findings the
 *   ground truth names caught it (blocked for the right reason).
 * - `security_flawed_blocked.critic`: the critic's own say (critic_verdict block) on flawed variants.
 * - `security_correct_passed`: per correct variant, the share of counted trials approved.
 * - per CWE: `security_flawed_blocked.<CWE>` and `security_correct_passed.<CWE>` (e.g. `.CWE-284`).
 * Nothing is returned when the run has no security trial, so other runs' summaries keep their keys.
 */
export function securityOracleMetrics(items: readonly ItemTrials[], truths: readonly SecurityVariantTruth[], ctx: EstimateContext): MetricMap {
  const truthOf = new Map(truths.map((t) => [t.id, t]));
  const joined = items.flatMap((item) => {
    const truth = truthOf.get(item.item_id);
    return truth ? [{ item, truth }] : [];
  });
  if (joined.length === 0) return {};
  const flawed = joined.filter((j) => j.truth.kind === "flawed");
  const correct = joined.filter((j) => j.truth.kind === "correct");
  const shares = (set: typeof joined, hit: (t: TrialRecord, truth: SecurityVariantTruth) => boolean) =>
    itemMeanMetric(
      // A security trial counts when the critic answered: an outage is not the engine's decision (METHODOLOGY §3).
      set.map(({ item, truth }) => itemTrialShare(item, (t) => hit(t, truth), isCounted)).filter((v) => v !== null),
      ctx,
    );
  const blocked = (t: TrialRecord) => t.verdict === "escalate";
  const approved = (t: TrialRecord) => t.verdict === "approve";
  const out: MetricMap = {
    security_flawed_blocked: shares(flawed, blocked),
    "security_flawed_blocked.by_finding": shares(flawed, (t, truth) => blocked(t) && caught(t, truth)),
    "security_flawed_blocked.critic": shares(flawed, (t) => t.critic_verdict === "block"),
    security_correct_passed: shares(correct, approved),
  };
  for (const cwe of [...new Set(joined.map((j) => j.truth.cwe))].sort()) {
    out[`security_flawed_blocked.${cwe}`] = shares(
      flawed.filter((j) => j.truth.cwe === cwe),
      blocked,
    );
    out[`security_correct_passed.${cwe}`] = shares(
      correct.filter((j) => j.truth.cwe === cwe),
      approved,
    );
  }
  return out;
}
