import type { z } from "zod";
import { formatPath, InputError } from "../../src/formats/load.ts";

const flag = (key: PropertyKey | undefined) => (key === undefined ? "(arguments)" : `--${String(key).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);

/** Validate commander's options with zod; the first issue is one line naming the flag (exit 2). */
export function parseOptions<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const rest = issue.path.slice(1);
  throw new InputError("command line", `${flag(issue.path[0])}${rest.length ? `.${formatPath(rest)}` : ""}`, issue.message);
}
