import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("merge")
    .description("Merge shard runs into one run (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: merge is not implemented yet\n");
      process.exit(3);
    });
}
