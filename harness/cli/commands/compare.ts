import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("compare")
    .description("Compare two runs on the same items (model swap) (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: compare is not implemented yet\n");
      process.exit(3);
    });
}
