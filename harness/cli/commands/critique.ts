import type { Command } from "commander";
import { z } from "zod";
import { readCriticResponse, type CriticItem } from "../../../src/critic/normalize.ts";
import type { RiskTolerance } from "../../../src/formats/enums.ts";
import type { Goal } from "../../../src/formats/goal.ts";
import type { Plan } from "../../../src/formats/plan.ts";
import { readText } from "../../../src/formats/load.ts";
import { criticBlocks } from "../../../src/loop/decide.ts";
import { EXIT } from "../exit.ts";
import { jsonText } from "../printing.ts";
import type { CommandContext } from "../context.ts";
import { parseOptions } from "../options.ts";
import { loadCheckInputs } from "../../api/check.ts";

const OptionsSchema = z.strictObject({
  goal: z.string().min(1),
  plan: z.string().min(1),
  response: z.string().min(1),
  json: z.boolean().default(false),
});

/** One output object per response finding, in response order; a dropped one says why. */
function itemJson(item: CriticItem, tolerance: RiskTolerance) {
  if (!item.finding) return { index: item.index, dropped: true, reason: "malformed_finding", detail: item.malformed, raw: item.raw };
  return { index: item.index, dropped: false, ...item.finding, blocks: criticBlocks(item.finding, tolerance) };
}

function itemLine(item: CriticItem, tolerance: RiskTolerance): string {
  if (!item.finding) return `  [${item.index}] dropped (malformed_finding: ${item.malformed})`;
  const f = item.finding;
  const raw = `${String(f.raw.family)}/${String(f.raw.severity)}`;
  const rules = f.normalization.length > 0 ? ` {${f.normalization.join(", ")}}` : "";
  const verdict = criticBlocks(f, tolerance) ? "BLOCKS" : "does not block";
  return (
    `  [${item.index}] ${f.family}/${f.severity} (raw ${raw})${rules} on ${f.task_id ?? "(plan)"}: ${verdict}\n` +
    `      evidence ${f.evidence?.claim ?? "(none)"}: ${f.evidence_status}: ${f.evidence_reason}\n` +
    `      ${f.message}`
  );
}

/**
 * What `critique` prints and exits with for a recorded response (docs/design.md §9). Pure: an
 * unusable response fails closed (exit 1), exactly as inside the loop.
 */
export function critiqueReport(goal: Goal, plan: Plan, rawText: string, json: boolean): { output: string; exitCode: number } {
  const reading = readCriticResponse(goal, plan, rawText);
  const tolerance = goal.risk_tolerance;
  const { items } = reading;
  const blocks = items.some((i) => i.finding !== null && criticBlocks(i.finding, tolerance));
  const verdict = reading.outcome === "critic_unavailable" || blocks ? "blocked" : "pass";
  const exitCode = verdict === "pass" ? EXIT.ok : EXIT.blocked;
  if (json) {
    const reason = reading.outcome === "critic_unavailable" ? reading.reason : null;
    const findings = items.map((i) => itemJson(i, tolerance));
    return { output: jsonText({ outcome: reading.outcome, reason, verdict, findings }), exitCode };
  }
  if (reading.outcome === "critic_unavailable") return { output: `blocked: critic_unavailable (${reading.reason}: ${reading.detail})\n`, exitCode };
  const header = `${verdict}: ${items.length} finding${items.length === 1 ? "" : "s"} under ${tolerance} tolerance`;
  return { output: `${[header, ...items.map((i) => itemLine(i, tolerance))].join("\n")}\n`, exitCode };
}

export function register(program: Command, { host, action }: CommandContext): void {
  program
    .command("critique")
    .description(
      "Normalize a recorded critic response and check its evidence (no LLM): 0 no blocker, 1 a blocker blocks or the critic is unavailable, 2 unreadable files",
    )
    .requiredOption("--goal <file>", "goal file (YAML or JSON; corpus goal files are accepted)")
    .requiredOption("--plan <file>", "the plan the critic reviewed (YAML or JSON)")
    .requiredOption("--response <file>", "the critic's raw response text")
    .option("--json", 'print {"outcome", "reason", "verdict", "findings": [...]}')
    .action(
      action((raw: unknown) => {
        const options = parseOptions(OptionsSchema, raw);
        const { goal, plan } = loadCheckInputs(options.goal, options.plan);
        // Read as text: whether it is JSON is the critic's problem (exit 1), not the file's.
        const { output, exitCode } = critiqueReport(goal, plan, readText(options.response), options.json);
        host.stdout.write(output);
        return exitCode;
      }),
    );
}
