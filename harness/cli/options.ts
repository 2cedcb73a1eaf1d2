import type { z } from "zod";
import { InputError } from "../../src/formats/load.ts";

/**
 * The flag a zod issue is about: `budgetUsd` is `--budget-usd`. Only the option itself is named:
 * an issue inside a list option (`--suite a,b`) is about `--suite`, which is what the user typed.
 */
function flagOf(path: readonly PropertyKey[]): string {
  const key = path[0];
  return key === undefined ? "(arguments)" : `--${String(key).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * Validate commander's option object with zod. Command-line options are input too: the first
 * issue becomes one `command line: --flag: message` line (exit 2), never a zod dump.
 */
export function parseOptions<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new InputError("command line", flagOf(issue.path), issue.message);
}

/** A repeatable option's values (`--pack A --pack B`), in the order given. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
