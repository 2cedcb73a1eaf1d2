import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("canary")
    .description("Run the gate canaries: every gate must fire on its must-fire twin only (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: canary is not implemented yet\n");
      process.exit(3);
    });
}
