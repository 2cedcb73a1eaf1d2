import type { Command } from "commander";
import { z } from "zod";
import type { GateFinding } from "../../../src/formats/findings.ts";
import { goalSchemaFor, toGoal, type Goal } from "../../../src/formats/goal.ts";
import { InputError, readSource, validate } from "../../../src/formats/load.ts";
import { PlanSchema, type Plan } from "../../../src/formats/plan.ts";
import { runGates } from "../../../src/gates/index.ts";
import { structuralViolations } from "../../../src/gates/structure.ts";
import { EXIT } from "../exit.ts";
import { jsonText } from "../printing.ts";
import type { CommandContext } from "../context.ts";
import { collect, parseOptions } from "../options.ts";
import { loadPacks } from "../../../src/packs/load.ts";
import { packsBehave } from "../../packs.ts";

const OptionsSchema = z.strictObject({ goal: z.string().min(1), plan: z.string().min(1), pack: z.array(z.string().min(1)).default([]), json: z.boolean().default(false) });

/**
 * Read a goal file (plain or corpus) and a plan file for `check`. A plan that breaks the zod
 * schema or any structural rule of DESIGN.md §3 (including a goal_id that is not the goal's id)
 * is invalid input: an InputError naming the plan file, the line and the key path.
 */
export function loadCheckInputs(goalFile: string, planFile: string): { goal: Goal; plan: Plan } {
  const goalSource = readSource(goalFile);
  const goal = toGoal(validate(goalSource, goalSchemaFor(goalSource.data)));
  const planSource = readSource(planFile);
  const plan = validate(planSource, PlanSchema);
  const [first] = structuralViolations(goal, plan);
  if (first) throw new InputError(planFile, first.path, first.message, planSource.lineOf(first.segments));
  return { goal, plan };
}

/** Human output: findings grouped by task in list order, plan-level findings first. */
export function formatFindingsByTask(plan: Plan, findings: readonly GateFinding[]): string {
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
    .description("Run the deterministic gates (and any --pack rules) on a plan (no LLM, no repairs): 0 pass, 1 blocked, 2 invalid input, 3 a --pack failed its own canaries")
    .requiredOption("--goal <file>", "goal file (YAML or JSON; corpus goal files are accepted)")
    .requiredOption("--plan <file>", "plan file (YAML or JSON)")
    .option("--pack <dir>", "also run a domain pack's rules (repeatable)", collect)
    .option("--json", 'print {"verdict": "pass"|"blocked", "findings": [...]}')
    .action(action((raw: unknown) => {
      const options = parseOptions(OptionsSchema, raw);
      const packs = loadPacks(options.pack);
      const { goal, plan } = loadCheckInputs(options.goal, options.plan);
      if (!packsBehave(packs, host.stderr, "the plan was not checked")) return EXIT.infrastructure;
      const findings = runGates(goal, plan, { packs });
      const verdict = findings.length === 0 ? "pass" : "blocked";
      host.stdout.write(options.json ? jsonText({ verdict, findings }) : formatFindingsByTask(plan, findings));
      return verdict === "pass" ? EXIT.ok : EXIT.blocked;
    }));
}
