import fc from "fast-check";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { intOption, numberOption, parseOptions } from "../../harness/cli/options.ts";
import { ROLE_PROVIDERS } from "../../src/providers/config.ts";
import { PROFILES_DIR } from "../../src/sim/profile.ts";
import { runFieldtest } from "../helpers/cli.ts";

const Schema = z.strictObject({ seed: intOption().optional(), budgetUsd: numberOption(z.number().positive()).optional(), trials: intOption(1).optional() });
const failure = (raw: Record<string, string>) => {
  try {
    parseOptions(Schema, raw);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
};

describe("number options", () => {
  it("read a number written as one, and refuse any other text by quoting it", () => {
    expect(parseOptions(Schema, { seed: "-3", budgetUsd: " 2.5e-1 ", trials: "10" })).toEqual({ seed: -3, budgetUsd: 0.25, trials: 10 });
    // z.coerce would have read "" as 0 and said "received NaN" for the others; Number reads hex, octal and binary.
    for (const text of ["", "  ", "abc", "12abc", "NaN", "Infinity", "0x3", "0o7", "0b11", "1e400"])
      expect(failure({ seed: text })).toBe(`command line: --seed: expected a number, got ${JSON.stringify(text)}`);
    expect(failure({ budgetUsd: "0x10" })).toBe('command line: --budget-usd: expected a number, got "0x10"');
    // A whole number is written in digits: "1e1" or "3.0" for --trials is more often a slip than a 10 or a 3.
    for (const text of ["1e1", "3.0", "1E3"])
      expect(failure({ trials: text })).toBe(`command line: --trials: expected a whole number in decimal digits, got ${JSON.stringify(text)}`);
    expect(failure({ seed: "1.5" })).toBe("command line: --seed: expected a whole number");
    expect(failure({ trials: "0" })).toMatch(/^command line: --trials: .*>=1$/);
    expect(failure({ budgetUsd: "-1" })).toMatch(/^command line: --budget-usd: .*>0$/);
  });

  it("give back exactly the integer written, for any integer", () => {
    fc.assert(fc.property(fc.integer({ min: -1e9, max: 1e9 }), (n) => parseOptions(Schema, { seed: String(n) }).seed === n));
  });

  it("have upper bounds where a huge value would hang, exhaust memory or misfire, each named as typed", async () => {
    const refused = async (args: string[], line: RegExp) => {
      const r = await runFieldtest(args);
      expect([r.code, r.stdout], args.join(" ")).toEqual([2, ""]);
      expect(r.stderr, args.join(" ")).toMatch(line);
      expect(r.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
    };
    // 1e12 trials planned every one of them before the first call; a timeout past Node's timer range fired after 1 ms.
    await refused(["run", "--dry-run", "--trials", "1000000000000"], /^fieldtest: command line: --trials: .*<=10000\n$/);
    await refused(["run", "--dry-run", "--trials", "0x3"], /^fieldtest: command line: --trials: expected a number, got "0x3"\n$/);
    await refused(["run", "--dry-run", "--concurrency", "1025"], /^fieldtest: command line: --concurrency: .*<=1024\n$/);
    await refused(
      ["run", "--dry-run", "--concurrency", "1e12"],
      /^fieldtest: command line: --concurrency: expected a whole number in decimal digits, got "1e12"\n$/,
    );
    await refused(["run", "--dry-run", "--timeout", "1e9"], /^fieldtest: command line: --timeout: .*<=86400\n$/);
    await refused(["compare", "a", "b", "--reps", "1000000000000"], /^fieldtest: command line: --reps: .*<=1000000\n$/);
    await refused(["research", "a", "--out", "o", "--reps", "1000000000000"], /^fieldtest: command line: --reps: .*<=1000000\n$/);
    // A provider name is checked before the model it would need.
    await refused(
      ["run", "--dry-run", "--provider", "bogus"],
      new RegExp(`^fieldtest: command line: --provider: .*${ROLE_PROVIDERS.map((p) => `"${p}"`).join("\\|")}\n$`),
    );
    await refused(["plan", "--goal", "g.yaml", "--base-url", "ftp://x"], /^fieldtest: command line: --base-url: expected an http:\/\/ or https:\/\/ URL\n$/);
    await refused(["trend", "a", "b", "--metrics", ","], /^fieldtest: command line: --metrics: name at least one metric\n$/);
  });

  it("have the same bounds in the files that set them: config trials and role timeouts, sim profile latencies", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ft-bounds-"));
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const trials = file("trials.yaml", "suites: [boundary]\ntrials: 1e12\n");
    expect(await runFieldtest(["run", "--dry-run", "--config", trials])).toMatchObject({
      code: 2,
      stderr: `fieldtest: ${trials}:2: trials: Too big: expected number to be <=10000\n`,
    });
    const timeout = file("timeout.yaml", "roles:\n  critic:\n    timeoutMs: 1000000000000\n");
    const t = await runFieldtest(["run", "--dry-run", "--config", timeout]);
    expect([t.code, t.stderr]).toEqual([2, expect.stringMatching(new RegExp(`^fieldtest: ${timeout}:3: roles\\.critic\\.timeoutMs: .*<=86400000\\n$`))]);
    // A selection that matches nothing names where it came from.
    const nothing = file("nothing.yaml", "domain: [nodomain]\n");
    expect(await runFieldtest(["run", "--dry-run", "--config", nothing])).toMatchObject({
      code: 2,
      stderr: `fieldtest: ${nothing}: only/domain/category: the selection matches no corpus goal or boundary fixture\n`,
    });
    expect(await runFieldtest(["run", "--dry-run", "--domain", "nodomain"])).toMatchObject({
      code: 2,
      stderr: "fieldtest: command line: --only/--domain/--category: the selection matches no corpus goal or boundary fixture\n",
    });
    const profile = file("profile.yaml", readFileSync(join(PROFILES_DIR, "default.yaml"), "utf8").replace(/^(\s*)latency_ms: .*$/m, "$1latency_ms: 1e308"));
    const p = await runFieldtest(["plan", "--goal", "corpus/goals/database/db-01-postgres-14-to-16-orders.yaml", "--sim-profile", profile]);
    expect([p.code, p.stderr]).toEqual([2, expect.stringMatching(new RegExp(`^fieldtest: ${profile}:\\d+: planner\\.latency_ms: .*<=600000\\n$`))]);
  });

  it("refuse a header with a line break or NUL at parse, on the command line and in a config file, before anything is sent", async () => {
    const line = "a header may not hold a line break (CR, LF) or NUL";
    for (const header of ["X-Custom-Token=abc\r\nX-Injected: 1", "X-Note=line\nbreak", "X=nul\u0000"]) {
      for (const command of [
        ["run", "--dry-run", "--provider", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"],
        ["plan", "--goal", "g.yaml", "--provider", "openai", "--model", "m"],
      ]) {
        expect(await runFieldtest([...command, "--header", header]), command[0]).toEqual({
          code: 2,
          stdout: "",
          stderr: `fieldtest: command line: --header: ${line}\n`,
        });
      }
    }
    const dir = mkdtempSync(join(tmpdir(), "ft-headers-"));
    const config = join(dir, "headers.yaml");
    writeFileSync(config, 'provider:\n  headers:\n    X-Custom-Token: "abc\\r\\nX-Injected: 1"\n');
    const r = await runFieldtest(["run", "--dry-run", "--config", config]);
    expect([r.code, r.stderr]).toEqual([2, `fieldtest: ${config}:3: provider.headers.X-Custom-Token: ${line}\n`]);
  });

  it("reach the user as one line, exit 2, from fieldtest itself", async () => {
    expect(await runFieldtest(["run", "--seed", "abc"])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'fieldtest: command line: --seed: expected a number, got "abc"\n',
    });
    expect(await runFieldtest(["trend", "a", "b", "--window", "1.5"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "fieldtest: command line: --window: expected a whole number\n",
    });
  });
});
