import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("corpus")
    .description("Validate the corpus and print its counts and hash (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: corpus is not implemented yet\n");
      process.exit(3);
    });
}
