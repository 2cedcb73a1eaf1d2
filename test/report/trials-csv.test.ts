import { describe, expect, it } from "vitest";
import { inertCell, trialsCsv } from "../../harness/report/trials-csv.ts";
import { call, engineTrial } from "../metrics/builders.ts";

describe("trials.csv", () => {
  it("never hands a spreadsheet a formula: text cells starting with = + - @ get a leading ', numbers stay numbers", () => {
    for (const [text, cell] of [
      ['=HYPERLINK("http://x","y")', `'=HYPERLINK("http://x","y")`],
      ["+1", "'+1"],
      ["-2+3", "'-2+3"],
      ["@SUM(1+1)", "'@SUM(1+1)"],
      ["\tx", "'\tx"],
      ["gpt-4o-mini", "gpt-4o-mini"],
      ["provider down", "provider down"],
    ] as const)
      expect(inertCell(text)).toBe(cell);
    const trial = { ...engineTrial("g", 0, "error", { cost: -0.5, calls: [call({ role: "planner" })] }), error: '=cmd|"/c calc"!A1, "quoted", and\na newline' };
    const text = trialsCsv([trial]);
    // Quoted as CSV quotes (doubled quotes, the comma and newline inside the quotes), after the guard.
    expect(text).toContain(`,"'=cmd|""/c calc""!A1, ""quoted"", and\na newline",`);
    expect(text).toMatch(/,-0\.5,/);
  });
});
