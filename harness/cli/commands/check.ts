import type { Command } from "commander";
import { z } from "zod";
import type { GateFinding } from "../../../src/formats/findings.ts";
import type { Plan } from "../../../src/formats/plan.ts";
import { checkPlan, CheckPlanOptionsSchema } from "../../api/check.ts";
import { jsonText } from "../printing.ts";
import type { CommandContext } from "../context.ts";
import { collect, parseOptions } from "../options.ts";
import { sayPackFailures } from "../../packs.ts";

const OptionsSchema = CheckPlanOptionsSchema.extend({ json: z.boolean().default(false) });

/** Human output: findings grouped by task in list order, plan-level findings first. */
function formatFindingsByTask(plan: Plan, findings: readonly GateFinding[]): string {
  if (findings.length === 0) return `pass: plan ${plan.id} passes every gate\n`;
  const byTask = new Map<string | null, GateFinding[]>();
  for (const f of findings) byTask.set(f.task_id, [...(byTask.get(f.task_id) ?? []), f]);
  const lines = [`blocked: ${findings.length} gate blocker${findings.length === 1 ? "" : "s"} in plan ${plan.id}`];
  const order = [null, ...plan.tasks.map((t) => t.id)];
  for (const taskId of new Set(order)) {
    const group = byTask.get(taskId);
    if (!group) continue;
    lines.push(`  ${taskId ?? "(plan)"}`);
    for (const f of group) lines.push(`    ${f.code} [${f.gate}, ${f.family}]: ${f.message}`);
  }
  return `${lines.join("\n")}\n`;
}

export function register(program: Command, { host, action }: CommandContext): void {
  program
    .command("check")
    .description(
      "Run the deterministic gates (and any --pack rules) on a plan (no LLM, no repairs): 0 pass, 1 blocked, 2 invalid input, 3 a --pack failed its own canaries",
    )
    .requiredOption("--goal <file>", "goal file (YAML or JSON; corpus goal files are accepted)")
    .requiredOption("--plan <file>", "plan file (YAML or JSON)")
    .option("--pack <dir>", "also run a domain pack's rules (repeatable)", collect)
    .option("--json", 'print {"verdict": "pass"|"blocked", "findings": [...]}')
    .action(
      action((raw: unknown) => {
        const { json, ...options } = parseOptions(OptionsSchema, raw);
        const outcome = checkPlan(options);
        if (outcome.verdict === "not_checked") {
          sayPackFailures(outcome.packFailures, host.stderr, "the plan was not checked");
          return outcome.exitCode;
        }
        const { verdict, findings } = outcome;
        host.stdout.write(json ? jsonText({ verdict, findings }) : formatFindingsByTask(outcome.plan, findings));
        return outcome.exitCode;
      }),
    );
}
