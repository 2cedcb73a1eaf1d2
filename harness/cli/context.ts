import type { Command } from "commander";
import type { SweepHost } from "../run/sweep.ts";

/** What a command is registered with: the process it runs in and the wrapper of its action. */
export interface CommandContext {
  /** The process: its command line, environment, streams, clock and signals (a test's own, in process). */
  host: SweepHost;
  /** Wraps the command's action: the exit code it returns, or what it throws, ends `runCli`. */
  action<A extends unknown[]>(run: (...args: A) => number | Promise<number>): (...args: A) => Promise<void>;
  /** One line on stderr, `fieldtest: warning: ...`: something the command went on despite. */
  warn(line: string): void;
}

/** A command module: it declares the command, its options and its action on the program. */
export interface CommandModule {
  register(program: Command, context: CommandContext): void;
}
