import { InputError } from "../../src/formats/input-error.ts";

/** Exit codes (DESIGN.md §9). */
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

/** Bad input gets one line and exit 2; anything else is an infrastructure error (exit 3). */
export function reportFatal(e: unknown): Promise<never> {
  if (e instanceof InputError) {
    process.stderr.write(`fieldtest: ${e.message}\n`);
    return exitWith(EXIT.invalid);
  }
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`fieldtest: error: ${message}\n`);
  if (process.env.FIELDTEST_DEBUG && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  return exitWith(EXIT.infrastructure);
}

/**
 * A command's action: run it and exit with the code it returns; whatever it throws goes to
 * reportFatal (one line, exit 2 for bad input, 3 otherwise).
 */
export function guarded<A extends unknown[]>(action: (...args: A) => number | Promise<number>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    let code: number;
    try {
      code = await action(...args);
    } catch (e) {
      return reportFatal(e);
    }
    return exitWith(code);
  };
}
