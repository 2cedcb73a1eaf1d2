import type { Command } from "commander";

// Placeholder until the issue that owns this command lands.
export function register(program: Command): void {
  program
    .command("report")
    .description("Compute metrics and write summary.json, trials.csv, report.md and report.html (not implemented yet)")
    .action(() => {
      process.stderr.write("fieldtest: report is not implemented yet\n");
      process.exit(3);
    });
}
