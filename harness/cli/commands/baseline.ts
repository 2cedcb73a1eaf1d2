import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("baseline")
    .description("Publish a run as a baseline (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: baseline is not implemented yet\n");
      process.exit(3);
    });
}
