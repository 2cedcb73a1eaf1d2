import { describe, expect, it } from "vitest";
import { checkPlan, compare, diff, gate, loadRun, runSweep, summarize, trend } from "../../harness/api/index.ts";
import { InputError } from "../../src/formats/load.ts";

/** The API's options: typed values, validated at the boundary; a bad one is one InputError naming the function and the option. */

function refusal(call: () => unknown): string {
  try {
    call();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return (e as Error).message;
  }
  throw new Error("expected the options to be refused");
}

describe("the API's options", () => {
  it("refuse a bad option with one line naming the function and the option's path", () => {
    expect(refusal(() => gate({ run: "r", baseline: "b", policy: "" }))).toMatch(/^gate options: policy: Too small/);
    expect(refusal(() => diff({ run: "r", baseline: "b", alpha: 1 }))).toMatch(/^diff options: alpha: Too big: expected number to be <1$/);
    expect(refusal(() => compare({ a: "a", b: "b", reps: 2.5 }))).toBe("compare options: reps: expected a whole number");
    expect(refusal(() => trend({ runs: [] }))).toMatch(/^trend options: runs: Too small/);
    expect(refusal(() => trend({ runs: ["a"], metrics: [] }))).toBe("trend options: metrics: name at least one metric");
    expect(refusal(() => loadRun({} as never))).toMatch(/^loadRun options: run: Invalid input/);
    expect(refusal(() => summarize({ run: "r", corpus: 3 } as never))).toMatch(/^summarize options: corpus: Invalid input: expected string/);
    expect(refusal(() => checkPlan({ goal: "g", plan: "p", pack: "x" } as never))).toMatch(/^checkPlan options: pack: Invalid input: expected array/);
  });

  it("name an unknown option itself, as a misspelt flag would be", () => {
    expect(refusal(() => gate({ run: "r", baseline: "b", polcy: "x" } as never))).toMatch(/^gate options: polcy: Unrecognized key/);
  });

  it("take numbers as numbers and enums as their values, never the command line's text", async () => {
    await expect(runSweep({ trials: "3" } as never)).rejects.toThrow(/^runSweep options: trials: Invalid input: expected number, received string$/);
    await expect(runSweep({ trials: 0 })).rejects.toThrow(/^runSweep options: trials: Too small: expected number to be >=1$/);
    await expect(runSweep({ suite: ["corpus", "nightly"] } as never)).rejects.toThrow(/^runSweep options: suite\.1: Invalid option/);
    await expect(runSweep({ shard: { index: 3, count: 2 } })).rejects.toThrow(/^runSweep options: shard: expected I\/N with 1 <= I <= N$/);
    await expect(runSweep({ retryErrors: true })).rejects.toThrow(/^runSweep options: retryErrors: needs --resume DIR$/);
  });

  it("resolve a sweep's defaults (the sim, the packaged corpus) without running anything on a dry run", async () => {
    const printed: string[] = [];
    const stdout = { write: (s: string) => printed.push(s) > 0, isTTY: false } as unknown as NodeJS.WritableStream;
    const r = await runSweep({ dryRun: true, only: ["db-01-*"], trials: 2 }, { stdout, env: {} });
    expect(r).toEqual({ exitCode: 0, dir: null, summary: null });
    expect(printed.join("")).toMatch(/planner\s+sim\/sim-planner-1/);
  });
});
