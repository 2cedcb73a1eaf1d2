import { Command, CommanderError, type Help } from "commander";
import type { SweepHost } from "../run/sweep.ts";
import { commandsFor } from "./commands/index.ts";
import type { CommandContext } from "./context.ts";
import { PACKAGE_VERSION } from "../package.ts";
import { EXIT, reportError } from "./exit.ts";
import { environmentKeys } from "../../src/providers/credentials.ts";
import { registerSecret } from "../../src/secrets.ts";
import { printingStream } from "./printing.ts";
import { READ_LIMITS, readLimitsFrom, setReadLimits, type ReadLimits } from "../../src/formats/files.ts";

/** The command list shows one line per command: the description up to its first colon. */
const oneLine = (cmd: Command): string => cmd.summary() || (cmd.description().split(/: /)[0] ?? "");

/** Every subcommand, nested ones too, prints usage mistakes as one prefixed line. */
function configureTree(parent: Command, prefix: string): void {
  for (const cmd of parent.commands) {
    const name = `${prefix}${cmd.name()}`;
    cmd.configureOutput({ outputError: (text, write) => write(`fieldtest: ${name}: ${text.replace(/^error: /, "")}`) });
    cmd.configureHelp({ subcommandDescription: oneLine });
    configureTree(cmd, `${name} `);
  }
}

/**
 * Runs one command line (`host.argv`, without `fieldtest`) on a host and resolves to its exit code
 * (docs/design.md §9). Everything it prints goes to the host's streams: bin/fieldtest.js runs it on this
 * process, tests run it in theirs.
 */
export async function runCli(given: SweepHost): Promise<number> {
  // The vendor keys of the environment are masked from all the command prints and writes, as is every credential it sends.
  for (const key of environmentKeys(given.env)) registerSecret(key);
  const host: SweepHost = { ...given, stdout: printingStream(given.stdout), stderr: printingStream(given.stderr) };
  let limits: ReadLimits;
  try {
    limits = readLimitsFrom(host.env);
  } catch (e) {
    return reportError(e, host);
  }
  // The command's environment sets how much it reads of a file; the limits before are back once it ends.
  const before = setReadLimits(limits);
  try {
    return await runCommand(host);
  } finally {
    setReadLimits(before);
  }
}

async function runCommand(host: SweepHost): Promise<number> {
  let code: number = EXIT.ok;
  const context: CommandContext = {
    host,
    action:
      (run) =>
      async (...args) => {
        code = await run(...args);
      },
    warn: (line) => host.stderr.write(`fieldtest: warning: ${line}\n`),
  };
  const program = new Command("fieldtest")
    .description("Field-test and evaluation harness for planner-critic engines")
    .version(PACKAGE_VERSION)
    .configureHelp({ subcommandDescription: oneLine, helpWidth: 200 } satisfies Partial<Help>)
    // Usage mistakes are bad input: one line, prefixed like every other error, exit 2.
    .configureOutput({
      writeOut: (text) => host.stdout.write(text),
      writeErr: (text) => host.stderr.write(text),
      outputError: (text, write) => write(`fieldtest: ${text.replace(/^error: /, "")}`),
    })
    .exitOverride()
    .addHelpText(
      "after",
      `\nEnvironment (limits in MiB; docs/reference/read-limits.md):\n${Object.values(READ_LIMITS)
        .map((l) => `  ${l.env.padEnd(22)} ${l.what} (default ${l.mb})`)
        .join("\n")}\n`,
    );

  const commands = commandsFor(host.argv);
  // Before any command module builds a schema: zod compiles each schema to a fast path on its first
  // parse (valid input only; invalid input takes the regular parser, so errors read the same).
  // Not for --version, which loads no command and so no zod.
  if (commands.length > 0) await import("zod/compile");
  for (const module of await Promise.all(commands.map((c) => c.load()))) module.register(program, context);
  configureTree(program, "");

  try {
    await program.parseAsync([...host.argv], { from: "user" });
  } catch (e) {
    // --help and --version end here with code 0; usage mistakes are invalid input.
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.invalid;
    return reportError(e, host);
  }
  return code;
}
