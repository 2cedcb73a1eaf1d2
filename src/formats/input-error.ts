/**
 * Bad input: one line naming the file, the key path and (for YAML) the line. The CLI prints
 * `message` and exits 2; no stack trace ever reaches the user.
 */
export class InputError extends Error {
  constructor(
    readonly file: string,
    readonly path: string,
    readonly detail: string,
    readonly line?: number,
  ) {
    super(`${file}${line ? `:${line}` : ""}: ${path ? `${path}: ` : ""}${detail}`);
    this.name = "InputError";
  }
}
