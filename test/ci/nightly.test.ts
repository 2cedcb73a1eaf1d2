import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../harness/package.ts";

const nightly = (env: Record<string, string>, ...args: string[]) =>
  spawnSync("bash", [join(PACKAGE_ROOT, "scripts/nightly.sh"), ...args], {
    cwd: PACKAGE_ROOT,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", CI: "1", ...env },
  });

describe("scripts/nightly.sh", () => {
  it("stops before the sweep when the baseline or the policy is missing or invalid", () => {
    const dir = mkdtempSync(join(tmpdir(), "ft-nightly-"));
    const history = join(dir, "history");
    const missing = nightly({ HISTORY: history, BASELINE: join(dir, "none.json") });
    expect([missing.status, missing.stderr]).toEqual([2, `fieldtest: ${join(dir, "none.json")}: file not found\n`]);
    const policy = join(dir, "gate.yaml");
    writeFileSync(policy, readFileSync(join(PACKAGE_ROOT, "gate.yaml"), "utf8").replace(/^alpha: .*$/m, "alpha: 2"));
    const invalid = nightly({ HISTORY: history, POLICY: policy });
    expect(invalid.status).toBe(2);
    expect(invalid.stderr).toMatch(new RegExp(`^fieldtest: ${policy}:\\d+: alpha: `));
    expect(existsSync(history)).toBe(false); // nothing ran, nothing was written
  });

  it("runs, diffs once into both forms, gates and trends, exiting with the gate's code", () => {
    const history = join(mkdtempSync(join(tmpdir(), "ft-nightly-")), "history");
    const r = nightly({ HISTORY: history }, "--only", "db-01-postgres-14-to-16-orders", "--trials", "2");
    const [night] = readdirSync(history);
    const out = join(history, night!);
    expect(readdirSync(out).sort()).toEqual(
      [
        "diff.json",
        "diff.txt",
        "gate-junit.xml",
        "gate.txt",
        "manifest.json",
        "report.html",
        "report.md",
        "spend.jsonl",
        "summary.json",
        "trend.txt",
        "trials.csv",
        "trials.jsonl",
      ].sort(),
    );
    const diff = JSON.parse(readFileSync(join(out, "diff.json"), "utf8")) as { deltas: unknown[] };
    expect(readFileSync(join(out, "diff.txt"), "utf8")).toContain(`deltas: ${diff.deltas.length} (`);
    // one item of the corpus against the full baseline: not a pass, and the script says which
    expect(r.status).not.toBe(0);
    expect(r.stdout).toContain(`run:   ${out}`);
    expect(r.stdout.trimEnd().split("\n")).toContain(readFileSync(join(out, "gate.txt"), "utf8").trimEnd().split("\n").at(-1));
  }, 180_000);
});
