import { maskText } from "../../src/secrets.ts";

/** Where a printing stream keeps the stream it prints to (the live progress view draws on it directly). */
const RAW = Symbol("the stream a printing stream prints to");

/** C0 controls but tab and newline, DEL, and C1 controls: what a terminal acts on (colours, its title, links, moving the cursor) instead of showing. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Text with every control character a terminal would act on shown as its escape (`\x1b`), so a model, a server or a run folder cannot drive the terminal. */
const terminalText = (text: string): string => text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);

/**
 * A value as a command prints it in JSON (`--json`), indented, on its own line. JSON.stringify
 * escapes C0 controls but leaves DEL and C1 as they are, which the printing stream would show as
 * `\x9b`, no JSON escape: they are escaped here as JSON escapes them, so the output stays valid
 * JSON of the same value.
 */
export const jsonText = (value: unknown): string =>
  `${JSON.stringify(value, null, 2).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`;

/** Text as a command prints it: every credential masked (src/secrets.ts), every control character shown, not acted on. */
const printable = (text: string): string => terminalText(maskText(text));

/**
 * The stream every command prints through: each string written is made printable first, so no
 * command, and no message of any module it calls, can print a credential or a control sequence
 * from a model, a server or a run folder. Newlines and tabs pass: the harness's own output is
 * lines (a line break inside a field reads as one). Everything else (isTTY, columns, listeners) is
 * the stream's own.
 */
export function printingStream<S extends NodeJS.WritableStream>(stream: S): S {
  const write = (chunk: unknown, ...rest: unknown[]) =>
    (stream.write as (...a: unknown[]) => boolean)(typeof chunk === "string" ? printable(chunk) : chunk, ...rest);
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === "write") return write;
      if (prop === RAW) return target;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The stream a printing stream prints to (the stream itself when it is none): for a view that draws only what the harness counts. */
export const rawStream = <S extends NodeJS.WritableStream>(stream: S): S => (stream as unknown as Record<symbol, S | undefined>)[RAW] ?? stream;
