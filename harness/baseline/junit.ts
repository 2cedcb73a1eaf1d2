import type { GateResult } from "./gate.ts";

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** The gate's checks as JUnit XML: one testcase per check; fail → failure, error → error, inconclusive → skipped. */
export function gateJUnit(result: GateResult): string {
  const count = (o: string) => result.checks.filter((c) => c.outcome === o).length;
  const cases = result.checks.map((c) => {
    const head = `    <testcase classname="fieldtest.gate.${c.kind}" name="${esc(c.name)}">`;
    const body =
      c.outcome === "fail"
        ? `\n      <failure message="${esc(c.message)}" type="regression"/>\n    `
        : c.outcome === "error"
          ? `\n      <error message="${esc(c.message)}" type="infrastructure"/>\n    `
          : c.outcome === "inconclusive"
            ? `\n      <skipped message="${esc(c.message)}"/>\n    `
            : "";
    return `${head}${body}</testcase>`;
  });
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="fieldtest gate" tests="${result.checks.length}" failures="${count("fail")}" errors="${count("error")}" skipped="${count("inconclusive")}">`,
    `  <testsuite name="gate: ${result.decision}" tests="${result.checks.length}" failures="${count("fail")}" errors="${count("error")}" skipped="${count("inconclusive")}">`,
    ...cases,
    `  </testsuite>`,
    `</testsuites>`,
    "",
  ].join("\n");
}
