import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("run")
    .description("Run a sweep: corpus goals and boundary fixtures, N trials each (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: run is not implemented yet\n");
      process.exit(3);
    });
}
