import type { CommandModule } from "../context.ts";

interface CommandEntry {
  name: string;
  /** Imported only when this command runs (or help lists every command): start-up pays for one. */
  load(): Promise<CommandModule>;
}

/** Every command, in the order `fieldtest --help` lists them. Each module registers itself. */
export const COMMANDS: readonly CommandEntry[] = [
  { name: "run", load: () => import("./run.ts") },
  { name: "check", load: () => import("./check.ts") },
  { name: "critique", load: () => import("./critique.ts") },
  { name: "plan", load: () => import("./plan.ts") },
  { name: "engine", load: () => import("./engine.ts") },
  { name: "canary", load: () => import("./canary.ts") },
  { name: "corpus", load: () => import("./corpus.ts") },
  { name: "schema", load: () => import("./schema.ts") },
  { name: "report", load: () => import("./report.ts") },
  { name: "merge", load: () => import("./merge.ts") },
  { name: "import", load: () => import("./import.ts") },
  { name: "baseline", load: () => import("./baseline.ts") },
  { name: "diff", load: () => import("./diff.ts") },
  { name: "gate", load: () => import("./gate.ts") },
  { name: "compare", load: () => import("./compare.ts") },
  { name: "trend", load: () => import("./trend.ts") },
  { name: "research", load: () => import("./research.ts") },
];

const VERSION_FLAGS = new Set(["-V", "--version"]);

/**
 * The commands a command line needs: the one it names (`fieldtest check ...`, `fieldtest help
 * check`); none for `--version`; all of them when the output is the command list (`--help`, no
 * command, an unknown one, whose error suggests the nearest names).
 */
export function commandsFor(argv: readonly string[]): readonly CommandEntry[] {
  const words = argv.filter((a) => !a.startsWith("-"));
  const name = words[0] === "help" ? words[1] : words[0];
  const named = COMMANDS.find((c) => c.name === name);
  if (named) return [named];
  if (name === undefined && argv.some((a) => VERSION_FLAGS.has(a))) return [];
  return COMMANDS;
}
