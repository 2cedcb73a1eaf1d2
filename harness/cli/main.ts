import { Command, CommanderError } from "commander";
import { readFileSync } from "node:fs";
import { COMMANDS } from "./commands/index.ts";
import { exitWith, reportFatal } from "./exit.ts";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

const program = new Command("fieldtest")
  .description("Field-test and evaluation harness for planner-critic engines")
  .version(pkg.version)
  .showHelpAfterError()
  .exitOverride();

for (const register of COMMANDS) register(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    // --help and --version end here with code 0; usage mistakes are invalid input.
    exitWith(e.exitCode === 0 ? 0 : 2);
  }
  reportFatal(e);
}
