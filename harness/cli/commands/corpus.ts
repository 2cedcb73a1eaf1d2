import type { Command } from "commander";
import { corpusCounts } from "../../corpus/counts.ts";
import { loadCorpus } from "../../corpus/load.ts";
import { validateCorpus } from "../../corpus/validate.ts";
import { EXIT } from "../exit.ts";
import type { CommandContext } from "../context.ts";
import { formatProblem } from "../../corpus/problem.ts";

const list = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");

interface Output {
  out(line: string): void;
  err(line: string): void;
}

/**
 * `fieldtest corpus validate [DIR]`: counts and the corpus hash on stdout and exit 0 when valid;
 * one `file: path: message` line per problem on stderr and exit 2 otherwise. A file that breaks
 * its schema throws an InputError, which the CLI reports as one line with exit 2.
 */
export function validateCommand(dir: string, io: Output): number {
  const corpus = loadCorpus(dir);
  const problems = validateCorpus(corpus);
  if (problems.length > 0) {
    for (const p of problems) io.err(`fieldtest: ${formatProblem(p)}`);
    io.err(`fieldtest: corpus ${dir} is invalid (${problems.length} problem${problems.length === 1 ? "" : "s"})`);
    return EXIT.invalid;
  }
  const c = corpusCounts(corpus);
  io.out(`corpus ${dir}: valid`);
  io.out(`goals: ${c.goals} in ${Object.keys(c.byDomain).length} domains`);
  io.out(`  by category: ${list(c.byCategory) || "none"}`);
  io.out(`  by domain: ${list(c.byDomain) || "none"}`);
  io.out(
    `boundary fixtures: ${c.fixtures} (clean controls ${c.cleanControls}, gate-invisible defects ${c.gateInvisible}, injection twins ${c.injectionTwins})`,
  );
  io.out(`security oracle: ${c.security.flawed} flawed and ${c.security.correct} correct variants of ${c.security.goals} goals, ${c.security.cwes} CWEs`);
  io.out(`injection traps: ${c.injection.traps} generated from ${c.injection.controls} clean controls`);
  io.out(`hash: ${corpus.hash}`);
  return EXIT.ok;
}

export function register(program: Command, { host, action }: CommandContext): void {
  const corpus = program.command("corpus").description("Work with the goal corpus and the boundary fixtures");
  corpus
    .command("validate")
    .description("Check every goal, fixture and security variant (schema, ids, twins, expected gate and pack findings); print counts and the corpus hash")
    .argument("[dir]", "corpus folder (goals/, boundary/, security/)", "corpus")
    .action(
      action((dir: string) => {
        const io: Output = {
          out: (line) => host.stdout.write(`${line}\n`),
          err: (line) => host.stderr.write(`${line}\n`),
        };
        return validateCommand(dir, io);
      }),
    );
}
