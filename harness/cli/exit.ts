import { InputError } from "../../src/formats/input-error.ts";

/** Exit codes (docs/design.md §9). */
export const EXIT = { ok: 0, blocked: 1, invalid: 2, infrastructure: 3 } as const;

/** Resolves once everything written so far to stdout and stderr has been handed to the OS. */
function drained(): Promise<void> {
  const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write("", () => resolve()));
  return Promise.all([flushed(process.stdout), flushed(process.stderr)]).then(() => undefined);
}

/** Exit after the output has drained: exiting at once cuts piped output (past 64 KiB) short. */
export async function exitWith(code: number): Promise<never> {
  await drained();
  process.exit(code);
}

/** Bad input gets one line and exit 2; anything else is an infrastructure error (exit 3). Returns the exit code. */
export function reportError(e: unknown, where: { stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv }): number {
  if (e instanceof InputError) {
    where.stderr.write(`fieldtest: ${e.message}\n`);
    return EXIT.invalid;
  }
  const message = e instanceof Error ? e.message : String(e);
  where.stderr.write(`fieldtest: error: ${message}\n`);
  if (where.env.FIELDTEST_DEBUG && e instanceof Error && e.stack) where.stderr.write(`${e.stack}\n`);
  return EXIT.infrastructure;
}

/** reportError on this process, then exit with its code (for scripts). */
export function reportFatal(e: unknown): Promise<never> {
  return exitWith(reportError(e, process));
}
