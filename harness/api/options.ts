import { z } from "zod";
import { InputError } from "../../src/formats/load.ts";

/**
 * Validate an API function's options object with zod: a bad option throws one InputError naming
 * the function and the option's path (`gate options: alpha: Too big: ...`), never a zod dump.
 */
export function parseApiOptions<S extends z.ZodType>(fn: string, schema: S, given: unknown): z.output<S> {
  const result = schema.safeParse(given ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  // An unknown key is named by itself, as a misspelt flag would be.
  const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]!] : issue.path;
  throw new InputError(`${fn} options`, path.map(String).join(".") || "(options)", issue.message);
}

/** A run folder or published baseline file, named by its path. */
export const PathSchema = z.string().min(1);
