import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("critique")
    .description("Normalize a recorded critic response and check its evidence (no LLM) (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: critique is not implemented yet\n");
      process.exit(3);
    });
}
