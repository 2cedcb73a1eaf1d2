import { InputError } from "../../src/formats/load.ts";

/** Exit codes (DESIGN.md §9). */
export const EXIT = { ok: 0, blocked: 1, invalid: 2, infrastructure: 3 } as const;

/** Output to files, pipes and terminals is synchronous on Linux, so exiting here loses nothing. */
export function exitWith(code: number): never {
  process.exit(code);
}

/** Bad input gets one line and exit 2; anything else is an infrastructure error (exit 3). */
export function reportFatal(e: unknown): never {
  if (e instanceof InputError) {
    process.stderr.write(`fieldtest: ${e.message}\n`);
    exitWith(EXIT.invalid);
  }
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`fieldtest: error: ${message}\n`);
  if (process.env.FIELDTEST_DEBUG && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  exitWith(EXIT.infrastructure);
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
      reportFatal(e);
    }
    exitWith(code);
  };
}
