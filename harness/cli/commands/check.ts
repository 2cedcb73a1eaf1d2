import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("check")
    .description("Run the deterministic gates on a plan (no LLM) (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: check is not implemented yet\n");
      process.exit(3);
    });
}
