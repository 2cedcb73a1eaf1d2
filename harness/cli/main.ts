import { Command, CommanderError, type Help } from "commander";
import { keepParsedYaml } from "../../src/formats/yaml-cache.ts";
import { PACKAGE_VERSION, PARSED_YAML_DIR } from "../package.ts";
import { commandsFor } from "./commands/index.ts";
import { exitWith, reportFatal } from "./exit.ts";

/** The command list shows one line per command: the description up to its first colon. */
const oneLine = (cmd: Command): string => cmd.summary() || (cmd.description().split(/: /)[0] ?? "");

// A reader that stops early (`fieldtest ... | head`) closes the pipe: that ends the output, not in error.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(0);
  throw e;
});

const program = new Command("fieldtest")
  .description("Field-test and evaluation harness for planner-critic engines")
  .version(PACKAGE_VERSION)
  .configureHelp({ subcommandDescription: oneLine, helpWidth: 200 } satisfies Partial<Help>)
  // Usage mistakes are bad input: one line, prefixed like every other error, exit 2.
  .configureOutput({ outputError: (text, write) => write(`fieldtest: ${text.replace(/^error: /, "")}`) })
  .exitOverride();

// Parsed YAML (the corpus above all) is kept between commands, in the package's own cache folder.
keepParsedYaml(PARSED_YAML_DIR);

const argv = process.argv.slice(2);
const commands = commandsFor(argv);
// Before any command module builds a schema: zod compiles each schema to a fast path on its first
// parse (valid input only; invalid input takes the regular parser, so errors read the same).
// Not for --version, which loads no command and so no zod.
if (commands.length > 0) await import("zod/compile");
for (const module of await Promise.all(commands.map((c) => c.load()))) module.register(program);

/** Every subcommand, nested ones too, prints usage mistakes as one prefixed line. */
function configureTree(parent: Command, prefix: string): void {
  for (const cmd of parent.commands) {
    const name = `${prefix}${cmd.name()}`;
    cmd.configureOutput({ outputError: (text, write) => write(`fieldtest: ${name}: ${text.replace(/^error: /, "")}`) });
    cmd.configureHelp({ subcommandDescription: oneLine });
    configureTree(cmd, `${name} `);
  }
}
configureTree(program, "");

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    // --help and --version end here with code 0; usage mistakes are invalid input.
    await exitWith(e.exitCode === 0 ? 0 : 2);
  }
  await reportFatal(e);
}
