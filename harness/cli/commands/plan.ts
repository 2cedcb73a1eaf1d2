import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("plan")
    .description("Run the engine on one goal and print its trace (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: plan is not implemented yet\n");
      process.exit(3);
    });
}
