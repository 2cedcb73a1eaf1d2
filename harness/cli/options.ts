import { existsSync } from "node:fs";
import type { Command } from "commander";
import { z } from "zod";
import { InputError } from "../../src/formats/load.ts";
import { wholeNumber } from "../config.ts";
import { PACKAGED_CORPUS } from "../package.ts";

/**
 * The flag a zod issue is about: `budgetUsd` is `--budget-usd`. Only the option itself is named:
 * an issue inside a list option (`--suite a,b`) is about `--suite`, which is what the user typed.
 */
export function flagOf(path: readonly PropertyKey[]): string {
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

/** A number as a command line writes it: decimal, with an optional fraction and exponent (never hex, octal, binary or Infinity). */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/** A whole number as a command line writes it: decimal digits. */
const DIGITS = /^[+-]?\d+$/;

/**
 * An option's text read as a number, strictly: only decimal text is a number (`Number` would read
 * "" as 0, "0x3" as 3, "Infinity" as a number); with `digits`, a whole number must be written in
 * digits ("1e3" and "3.0" name one, but read as a typo more often than not). What is not text
 * (absent, or already a number) goes to the typed schema as it is.
 */
function fromText<S extends z.ZodType>(schema: S, digits: boolean) {
  return z.preprocess((raw, ctx) => {
    if (typeof raw !== "string") return raw;
    const text = raw.trim();
    const n = DECIMAL.test(text) ? Number(text) : Number.NaN;
    if (!Number.isFinite(n)) {
      ctx.addIssue({ code: "custom", message: `expected a number, got ${JSON.stringify(raw)}` });
      return z.NEVER;
    }
    if (digits && Number.isInteger(n) && !DIGITS.test(text)) {
      ctx.addIssue({ code: "custom", message: `expected a whole number in decimal digits, got ${JSON.stringify(raw)}` });
      return z.NEVER;
    }
    return n;
  }, schema);
}

/** A number option as commander hands it over (text), then checked by the typed `schema`. */
export const numberOption = <S extends z.ZodType>(schema: S) => fromText(schema, false);

/** A whole-number option as commander hands it over (text, in decimal digits), then checked by the typed `schema`. */
export const wholeText = <S extends z.ZodType>(schema: S) => fromText(schema, true);

/** A whole-number option, in decimal digits, at least `min` and at most `max` when given. */
export const intOption = (min?: number, max?: number) => wholeText(wholeNumber(min, max));

/** `--base-url`, `--header` and `--timeout`, as every command that calls a vendor takes them (run, plan; EndpointCliShape reads them). */
export function endpointOptions(command: Command): Command {
  return command
    .option("--base-url <url>", "endpoint of the vendor providers for both roles (an OpenAI- or Anthropic-compatible server: Ollama, vLLM, ...)")
    .option("--header <k=v>", "extra request header, repeatable (credential values are never recorded or printed)", collect)
    .option("--timeout <sec>", "per-request timeout in seconds (at most 86400)");
}

/**
 * The options a command line gave, without commander's defaults: where a config file also sets a
 * value, the file's stands unless the flag is given (the defaults shown in --help are those the
 * settings resolve to without either).
 */
export function givenOptions(command: Command): Record<string, unknown> {
  return Object.fromEntries(Object.entries(command.opts()).filter(([key]) => command.getOptionValueSource(key) !== "default"));
}

/**
 * The corpus a command reads unless `--corpus` names one: ./corpus when the working directory has
 * one (a clone, or a corpus of your own), as fieldtest.config.yaml is read from there; else the
 * corpus fieldtest ships, so an installed fieldtest runs from any folder.
 */
export const defaultCorpus = (): string => (existsSync("corpus") ? "corpus" : PACKAGED_CORPUS);

/** `--corpus DIR`, defaulting to defaultCorpus() at the time the command runs. */
export const corpusOption = z.string().min(1).default(defaultCorpus);

export const CORPUS_HELP = "default: ./corpus when present, else the shipped corpus";
