import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { intOption, numberOption, parseOptions } from "../../harness/cli/options.ts";
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
    expect(parseOptions(Schema, { seed: "-3", budgetUsd: " 0.25 ", trials: "1e1" })).toEqual({ seed: -3, budgetUsd: 0.25, trials: 10 });
    // z.coerce would have read "" as 0 and said "received NaN" for the others.
    for (const text of ["", "  ", "abc", "12abc", "NaN", "Infinity"]) expect(failure({ seed: text })).toBe(`command line: --seed: expected a number, got ${JSON.stringify(text)}`);
    expect(failure({ seed: "1.5" })).toBe("command line: --seed: expected a whole number");
    expect(failure({ trials: "0" })).toMatch(/^command line: --trials: .*>=1$/);
    expect(failure({ budgetUsd: "-1" })).toMatch(/^command line: --budget-usd: .*>0$/);
  });

  it("give back exactly the integer written, for any integer", () => {
    fc.assert(fc.property(fc.integer({ min: -1e9, max: 1e9 }), (n) => parseOptions(Schema, { seed: String(n) }).seed === n));
  });

  it("reach the user as one line, exit 2, from fieldtest itself", async () => {
    expect(await runFieldtest(["run", "--seed", "abc"])).toEqual({ code: 2, stdout: "", stderr: 'fieldtest: command line: --seed: expected a number, got "abc"\n' });
    expect(await runFieldtest(["trend", "a", "b", "--window", "1.5"])).toEqual({ code: 2, stdout: "", stderr: "fieldtest: command line: --window: expected a whole number\n" });
  });
});
