import type { Goal } from "../../src/formats/goal.ts";
import type { EngineOutcome, RoundRecord } from "../../src/formats/records.ts";
import { spendOf } from "../../src/loop/budget.ts";
import { whyUnavailable } from "../../src/metrics/trial-facts.ts";

function roundLines(r: RoundRecord): string[] {
  const lines = [`round ${r.index}: plan ${r.plan.id} (${r.plan.tasks.length} tasks, content ${r.structural_hash.slice(0, 12)})`];
  for (const n of r.repairs) lines.push(`  repair ${n.repair}: ${n.message}`);
  for (const f of r.gate_findings) lines.push(`  gate ${f.code} on ${f.task_id ?? "(plan)"}: ${f.message}`);
  if (r.critic === null) lines.push("  critic: did not run");
  else if (r.critic.outcome === "critic_unavailable") lines.push(`  critic: unavailable (${r.critic.reason})`);
  else {
    const dropped = r.critic.malformed_findings > 0 ? `, ${r.critic.malformed_findings} malformed dropped` : "";
    lines.push(`  critic: ${r.critic.findings.length} findings${dropped}`);
    for (const f of r.critic.findings) {
      const raw = `${String(f.raw.family)}/${String(f.raw.severity)}`;
      lines.push(`    ${f.family}/${f.severity} (raw ${raw}) on ${f.task_id ?? "(plan)"}: evidence ${f.evidence?.claim ?? "(none)"} ${f.evidence_status}`);
    }
  }
  for (const f of r.carried_forward) lines.push(`  carried forward: ${f.key}`);
  lines.push(`  decision: ${r.decision}${r.reason ? ` (${r.reason})` : ""}; ${r.blocker_keys.length} blocker(s)`);
  return lines;
}

/** What an external engine said and did: its own word, and every call the proxy recorded, in order. */
function engineLines(outcome: EngineOutcome): string[] {
  const e = outcome.engine!;
  const said = `${e.reported.status ?? "nothing"}${e.reported.reasons.length ? ` (${e.reported.reasons.join(", ")})` : ""}${e.reported.error ? `: ${e.reported.error}` : ""}`;
  const exit = e.signal ? `ended by ${e.signal}` : e.exit_code === null ? "" : `, exit code ${e.exit_code}`;
  const lines = [`engine: ${e.outcome}; it said ${said}${exit}`];
  for (const c of outcome.calls) {
    const ctx = c.context;
    const retry = c.proxy?.retry_of != null ? `, resends #${c.proxy.retry_of}` : "";
    lines.push(
      `  #${c.proxy?.seq ?? "?"} ${c.role} round ${c.round}: ${c.outcome}${c.error_class ? ` (${c.error_class})` : ""}; model ${ctx.model}, temperature ${ctx.temperature ?? "not sent"}, max_tokens ${ctx.max_tokens ?? "not sent"}, ${ctx.response_format}${retry}`,
    );
  }
  if (e.refused_requests > 0) lines.push(`  ${e.refused_requests} request(s) refused by the proxy (wrong token, not JSON, streaming)`);
  if (e.stderr_tail !== null && e.outcome !== "ok") lines.push(`  stderr (last lines): ${e.stderr_tail.trim().split("\n").slice(-5).join(" | ")}`);
  return lines;
}

/** The trace summary for a terminal: what each round saw and decided, then the spend. */
export function traceSummary(goal: Goal, outcome: EngineOutcome): string {
  const spend = spendOf(outcome.calls);
  const cost = spend.costUnknown ? "unknown" : `$${spend.costUsd.toFixed(4)}`;
  const escalated = `escalated: ${outcome.escalation_reasons.join(", ")}`;
  const failed = outcome.engine ? `error (no verdict): ${outcome.error}` : `error (the provider never answered; ${escalated}, fail closed): ${outcome.error}`;
  const verdict = outcome.status === "approved" ? "approved" : outcome.status === "error" ? failed : escalated;
  const rejected = whyUnavailable(outcome);
  const why = rejected === null ? [] : [`  last rejected answer: ${rejected}`];
  return [
    `goal ${goal.id} (${goal.risk_tolerance}, replan ${goal.replan_policy})`,
    ...outcome.rounds.flatMap(roundLines),
    `${verdict}`,
    ...why,
    ...(outcome.engine ? engineLines(outcome) : []),
    `calls: ${outcome.calls.length} (${spend.calls} sent), tokens: ${spend.tokensUnknown ? "unknown" : spend.tokens}, cost: ${cost}`,
  ].join("\n");
}
