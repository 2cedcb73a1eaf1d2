import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("import")
    .description("Import field-test artefacts of another engine as a run (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: import is not implemented yet\n");
      process.exit(3);
    });
}
