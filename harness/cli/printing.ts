import { maskText } from "../../src/secrets.ts";

/** Where a printing stream keeps the stream it prints to (the live progress view draws on it directly). */
const RAW = Symbol("the stream a printing stream prints to");

/** Text as a command prints it: every credential masked (src/secrets.ts). */
export const printable = (text: string): string => maskText(text);

/**
 * The stream every command prints through: each string written is made printable first, so no
 * command, and no message of any module it calls, can print what it must not. Everything else
 * (isTTY, columns, listeners) is the stream's own.
 */
export function printingStream<S extends NodeJS.WritableStream>(stream: S): S {
  const write = (chunk: unknown, ...rest: unknown[]) => (stream.write as (...a: unknown[]) => boolean)(typeof chunk === "string" ? printable(chunk) : chunk, ...rest);
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
export const rawStream = <S extends NodeJS.WritableStream>(stream: S): S => ((stream as unknown as Record<symbol, S | undefined>)[RAW] ?? stream);
