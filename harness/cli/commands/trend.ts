import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("trend")
    .description("Drift alerts over a history of runs (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: trend is not implemented yet\n");
      process.exit(3);
    });
}
