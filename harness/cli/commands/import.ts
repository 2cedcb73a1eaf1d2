import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { z } from "zod";
import { importPlannerCritic } from "../../import/planner-critic/run.ts";
import { runIdFor } from "../../run/manifest.ts";
import { redactArgv } from "../../run/redact.ts";
import { EXIT } from "../exit.ts";
import type { CommandContext } from "../context.ts";
import { parseOptions } from "../options.ts";

const OptionsSchema = z.strictObject({ goals: z.string().min(1), out: z.string().min(1), force: z.boolean().optional(), strict: z.boolean().optional() });

export function register(program: Command, { host, action }: CommandContext): void {
  const cmd = program.command("import").description("Import field-test artefacts of another engine as run directories");
  cmd
    .command("planner-critic")
    .description(
      "Import a PlannerCritic 0.1.0 field-test tree as runs: one per run group × engine dimension (core-api, critique modes, budget, replan policies), rescored by fieldtest's gates and normalizer",
    )
    .argument("<reports>", "the field test's output tree (<group>/.../<dimension>/<goal>/trace.json with llm-logs/ beside each trace)")
    .requiredOption("--goals <dir>", "the goals folder (<id>.json with <id>.assertions.yaml or assertions/<id>.yaml)")
    .requiredOption("--out <dir>", "folder for the run directories and import.json (must be empty unless --force)")
    .option("--force", "replace a previous import in --out (the run folders its import.json lists)")
    .option("--strict", "import nothing and exit 2 when any input is broken (by default a broken trace or log is named on stderr, left out, and counted)")
    .action(
      action((reports: string, raw: unknown) => {
        const options = parseOptions(OptionsSchema, raw);
        const now = () => new Date();
        const result = importPlannerCritic({
          reportsDir: reports,
          goalsDir: options.goals,
          out: options.out,
          force: options.force === true,
          strict: options.strict === true,
          runId: runIdFor(now(), `${randomBytes(3).toString("hex")}-imported`),
          command: ["fieldtest", ...redactArgv(host.argv)],
          now,
        });
        for (const p of result.problems) host.stderr.write(`fieldtest: import: ${p.file}: ${p.where}: ${p.detail}\n`);
        if (result.runs.length === 0) {
          host.stderr.write(`fieldtest: import: nothing imported from ${reports}\n`);
          return EXIT.invalid;
        }
        const trials = result.runs.reduce((n, r) => n + r.trials.length, 0);
        const notes = result.runs.reduce((n, r) => n + r.trials.reduce((k, t) => k + t.conversion.notes.length, 0), 0);
        const c = result.calls;
        const width = Math.max(...result.runs.map((r) => r.name.length));
        host.stdout.write(
          `imported ${trials} trials of ${result.goals} goals into ${result.runs.length} runs: ${c.imported} of ${c.logged} logged calls in trials ` +
            `(${c.untraced} calls in ${c.untraced_trials} trials whose outcome no trace records)${c.unplaced > 0 ? `, ${c.unplaced} in logs no trial took` : ""}; ` +
            `${notes} conversion notes, ${result.problems.length} input problems, ${result.skipped.length} traces of dimensions without an engine run\n` +
            `runs:\n${result.runs.map((r) => `  ${r.name.padEnd(width)}  ${r.trials.length} trials, ${r.goals} goals, mode ${r.source.mode}, at most ${r.source.max_rounds} rounds  ${r.dir}\n`).join("")}` +
            `wrote:\n${result.written.map((f) => `  ${f}\n`).join("")}` +
            `next:  npx --no-install fieldtest research ${options.out} --out ${options.out.replace(/\/+$/, "")}-research\n` +
            `       npx --no-install fieldtest report ${result.runs[0]!.dir}\n`,
        );
        return EXIT.ok;
      }),
    );
}
