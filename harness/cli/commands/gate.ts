import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("gate")
    .description("Release gate: judge a run against a baseline and a policy (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: gate is not implemented yet\n");
      process.exit(3);
    });
}
