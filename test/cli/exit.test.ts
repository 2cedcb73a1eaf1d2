import { execa } from "execa";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { compiled } from "../helpers/compiled.ts";

const script = compiled(fileURLToPath(new URL("./fixtures/big-output.ts", import.meta.url)));

describe("exitWith", () => {
  it("lets piped output drain before the process exits", async () => {
    // 512 KiB through a pipe: exiting without draining cuts it at the pipe buffer (64 KiB).
    const result = await execa(process.execPath, [script], { stripFinalNewline: false });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.length).toBe(512 * 1024);
  });
});
