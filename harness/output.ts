import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { InputError } from "../src/formats/input-error.ts";
import { maskText } from "../src/secrets.ts";

/**
 * Failures that say the path the user named is wrong (a folder, a file where a folder should be, a
 * missing parent, no permission): bad input. Anything else (a full disk) is infrastructure.
 */
const BAD_PATH: ReadonlySet<string> = new Set(["EISDIR", "ENOTDIR", "ENOENT", "EEXIST", "EACCES", "EPERM", "EROFS", "ENAMETOOLONG"]);

/** Runs `write` on a path the user named: a bad path is one line of bad input naming the option. */
function onUserPath<T>(path: string, option: string, what: string, write: () => T): T {
  try {
    return write();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === undefined || !BAD_PATH.has(code)) throw e;
    throw new InputError(path, option, `cannot ${what} (${code})`);
  }
}

/** Writes a file the user named (`--junit`, `--json-out`), every credential masked. */
export function writeOutputFile(file: string, text: string, option: string): void {
  onUserPath(file, option, "write the file", () => writeFileSync(file, maskText(text)));
}

/** `mkdir -p` one level at a time: Node's recursive mkdir loops forever under a path it cannot create in (/proc). */
function makeDirs(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) makeDirs(parent);
  mkdirSync(dir);
}

/** Creates a folder the user named (`--out`), with its parents. */
export function makeOutputDir(dir: string, option: string): void {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new InputError(dir, option, "is a file, not a folder");
  onUserPath(dir, option, "create the folder", () => makeDirs(dir));
}

/** Writes a file the user named through `write` (an atomic JSON write, say), creating its folder first. */
export function writeOutputWith(file: string, option: string, write: (file: string) => void): void {
  makeOutputDir(dirname(file), option);
  onUserPath(file, option, "write the file", () => write(file));
}
