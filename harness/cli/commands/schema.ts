import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("schema")
    .description("Print the JSON Schema of a format (goal, plan, critic) (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: schema is not implemented yet\n");
      process.exit(3);
    });
}
