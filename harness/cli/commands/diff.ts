import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("diff")
    .description("Diff a run against a baseline, every delta attributed (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: diff is not implemented yet\n");
      process.exit(3);
    });
}
