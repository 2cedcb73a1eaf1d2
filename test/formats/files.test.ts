import { isUtf8 } from "node:buffer";
import { execFileSync } from "node:child_process";
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_READ_LIMITS, firstInvalidUtf8, openRunFile, readLimitsFrom, readRunText, setReadLimits } from "../../src/formats/files.ts";
import { readText } from "../../src/formats/load.ts";

const dir = () => mkdtempSync(join(tmpdir(), "ft-files-"));
const KiB = 1024;

afterEach(() => {
  setReadLimits(DEFAULT_READ_LIMITS);
});

/** Byte strings that are mostly UTF-8: real characters, stray continuation bytes, cut sequences, surrogates, overlong forms. */
const bytes = fc
  .array(
    fc.oneof(
      fc.string({ unit: "binary", maxLength: 4 }).map((s) => [...Buffer.from(s, "utf8")]),
      fc.constantFrom([0x80], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf5], [0xff], [0xe2, 0x82], [0xf0, 0x9f, 0x99]),
    ),
    { maxLength: 12 },
  )
  .map((parts) => Uint8Array.from(parts.flat()));

describe("firstInvalidUtf8", () => {
  it("finds no bad byte exactly when the bytes are UTF-8, and everything before the one it finds is UTF-8", () => {
    fc.assert(
      fc.property(bytes, (b) => {
        const at = firstInvalidUtf8(b);
        expect(at === -1).toBe(isUtf8(b));
        if (at !== -1) {
          expect(isUtf8(b.subarray(0, at))).toBe(true);
          // The sequence at `at` is what breaks: no longer prefix ending past it is UTF-8 up to the next character.
          expect(isUtf8(b.subarray(0, at + 4 > b.length ? b.length : at + 4))).toBe(false);
        }
      }),
    );
  });
});

describe("read limits", () => {
  it("come from the environment in MiB; a value that is not a positive decimal number is bad input naming the variable", () => {
    expect(readLimitsFrom({})).toEqual(DEFAULT_READ_LIMITS);
    expect(readLimitsFrom({ FIELDTEST_MAX_FILE_MB: "0.5", FIELDTEST_MAX_LINE_MB: " 2 ", FIELDTEST_MAX_LOG_MB: "" })).toEqual({
      ...DEFAULT_READ_LIMITS,
      fileBytes: 512 * KiB,
      lineBytes: 2048 * KiB,
    });
    for (const bad of ["0", "-1", "0x10", "1e3", "ten", "Infinity"]) {
      expect(() => readLimitsFrom({ FIELDTEST_MAX_FILE_MB: bad })).toThrow(
        `environment: FIELDTEST_MAX_FILE_MB: expected a positive number of MiB, got ${JSON.stringify(bad)}`,
      );
    }
  });
});

describe("readText (an input file)", () => {
  it("reads a file up to the limit, and refuses a larger one naming the limit and how to raise it", () => {
    const d = dir();
    setReadLimits({ ...DEFAULT_READ_LIMITS, fileBytes: 4 * KiB });
    writeFileSync(join(d, "ok.yaml"), "a".repeat(4 * KiB));
    expect(readText(join(d, "ok.yaml"))).toHaveLength(4 * KiB);
    writeFileSync(join(d, "big.yaml"), "a".repeat(4 * KiB + 1));
    expect(() => readText(join(d, "big.yaml"))).toThrow(
      `${join(d, "big.yaml")}: larger than the 0.00390625 MiB a file read whole may be (set FIELDTEST_MAX_FILE_MB, in MiB, to raise it)`,
    );
  });

  it("stops an endless file at the limit instead of reading it whole (/dev/zero)", () => {
    setReadLimits({ ...DEFAULT_READ_LIMITS, fileBytes: 256 * KiB });
    expect(() => readText("/dev/zero")).toThrow(/^\/dev\/zero: larger than the 0\.25 MiB a file read whole may be/);
  });

  it("refuses bytes that are not UTF-8, naming the byte offset, instead of reading them as U+FFFD", () => {
    const d = dir();
    const file = join(d, "goal.yaml");
    writeFileSync(file, Buffer.concat([Buffer.from("id: é-goal\ntitle: "), Buffer.from([0xc3, 0x28]), Buffer.from("\n")]));
    expect(() => readText(file)).toThrow(`${file}: not valid UTF-8 (byte offset 19)`);
    writeFileSync(file, "id: é\n");
    expect(readText(file)).toBe("id: é\n");
  });
});

describe("run folder files", () => {
  it("are opened only as regular files: a link, a FIFO or a folder is refused naming the file; a missing one reads as null", () => {
    const d = dir();
    writeFileSync(join(d, "victim.txt"), "outside");
    symlinkSync(join(d, "victim.txt"), join(d, "linked.json"));
    execFileSync("mkfifo", [join(d, "fifo.json")]);
    const refusals: [string, string][] = [
      ["linked.json", "is a symbolic link, which fieldtest does not follow here: put the file itself in its place"],
      ["fifo.json", "is a FIFO, not a regular file"],
    ];
    for (const [name, why] of refusals) {
      expect(() => openRunFile(join(d, name), "read")).toThrow(`${join(d, name)}: ${why}`);
      expect(() => openRunFile(join(d, name), "append")).toThrow(`${join(d, name)}: `);
      expect(() => readRunText(join(d, name))).toThrow(`${join(d, name)}: ${why}`);
    }
    expect(() => readRunText(d)).toThrow(`${d}: is a folder, not a file`);
    expect(readRunText(join(d, "none.json"))).toBeNull();
    symlinkSync("/dev/zero", join(d, "zero.json"));
    expect(() => readRunText(join(d, "zero.json"))).toThrow(/is a symbolic link/);
  });
});
