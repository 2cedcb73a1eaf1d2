import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { z } from "zod";
import { importPlannerCritic } from "../../import/planner-critic/run.ts";
import { runIdFor } from "../../run/manifest.ts";
import { redactArgv } from "../../run/redact.ts";
import { EXIT, guarded } from "../exit.ts";
import { parseOptions } from "../options.ts";

const OptionsSchema = z.strictObject({ goals: z.string().min(1), out: z.string().min(1), force: z.boolean().optional() });

export function register(program: Command): void {
  const cmd = program.command("import").description("Import field-test artefacts of another engine as a run directory");
  cmd
    .command("planner-critic")
    .description("Import PlannerCritic 0.1.0 field-test traces and LLM logs (suite imported), rescored by fieldtest's gates and normalizer")
    .argument("<reports>", "the field test's output folder (core-api/<goal>/trace.json and llm-logs/ somewhere below)")
    .requiredOption("--goals <dir>", "the goals folder (<id>.json and <id>.assertions.yaml)")
    .requiredOption("--out <dir>", "run directory to write (must be empty unless --force)")
    .option("--force", "reuse a non-empty --out, removing the previous run's files")
    .action(guarded((reports: string, raw: unknown) => {
      const options = parseOptions(OptionsSchema, raw);
      const now = () => new Date();
      const result = importPlannerCritic({
        reportsDir: reports,
        goalsDir: options.goals,
        out: options.out,
        force: options.force === true,
        runId: runIdFor(now(), `${randomBytes(3).toString("hex")}-imported`),
        command: ["fieldtest", ...redactArgv(process.argv.slice(2))],
        now,
      });
      for (const p of result.problems) process.stderr.write(`fieldtest: import: ${p.file}: ${p.where}: ${p.detail}\n`);
      if (result.manifest === null) {
        process.stderr.write(`fieldtest: import: nothing imported from ${reports}\n`);
        return EXIT.invalid;
      }
      const notes = result.trials.reduce((n, t) => n + t.conversion.notes.length, 0);
      process.stdout.write(
        `imported ${result.trials.length} trials of ${result.goals} goals (${result.manifest.totals.calls} calls), ` +
          `${notes} conversion notes, ${result.problems.length} input problems\nwrote:\n${result.written.map((f) => `  ${f}\n`).join("")}` +
          `next:  npx --no-install fieldtest report ${options.out} --corpus ${options.out}\n`,
      );
      return EXIT.ok;
    }));
}
