import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runFieldtest } from "../helpers/cli.ts";

const dir = mkdtempSync(join(tmpdir(), "fieldtest-cli-inputs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string | Buffer) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

const goal = file("goal.yaml", "id: g\ndomain: d\ntitle: T\ndescription: D\nrisk_tolerance: strict\n");
const plan = file("plan.yaml", "id: p\ngoal_id: g\ntasks:\n  - {id: look, description: Look, kind: read}\ndependencies: []\n");
/** A file just over 1 MiB, whatever the format reads it as. */
const big = (name: string, head: string) => file(name, `${head}\n#${"x".repeat(1024 * 1024)}\n`);

/** The command lines that read each input kind, with `input` in place of that input. */
const READERS: Record<string, (input: string) => string[]> = {
  goal: (input) => ["check", "--goal", input, "--plan", plan],
  plan: (input) => ["check", "--goal", goal, "--plan", input],
  critique: (input) => ["critique", "--goal", goal, "--plan", plan, "--response", input],
  config: (input) => ["run", "--config", input, "--dry-run"],
  // run reads its --baseline, then its --policy, before anything else.
  policy: (input) => ["run", "--baseline", "baselines/sim-default.json", "--policy", input, "--dry-run"],
};

describe("input files", () => {
  it.each(Object.keys(READERS))(
    "%s: one past FIELDTEST_MAX_FILE_MB is refused naming the limit and how to raise it (exit 2); raising it reads the file",
    async (kind) => {
      const input = big(`big-${kind}.yaml`, "id: g");
      const refused = await runFieldtest(READERS[kind]!(input), { FIELDTEST_MAX_FILE_MB: "1" });
      expect([refused.code, refused.stderr]).toEqual([
        2,
        `fieldtest: ${input}: larger than the 1 MiB a file read whole may be (set FIELDTEST_MAX_FILE_MB, in MiB, to raise it)\n`,
      ]);
      const raised = await runFieldtest(READERS[kind]!(input), { FIELDTEST_MAX_FILE_MB: "2" });
      expect(raised.stderr).not.toContain("larger than");
    },
  );

  it.each(Object.keys(READERS))("%s: bytes that are not UTF-8 are bad input naming the byte offset (exit 2)", async (kind) => {
    const input = file(`latin1-${kind}.yaml`, Buffer.concat([Buffer.from("id: g\ntitle: Caf"), Buffer.from([0xe9]), Buffer.from("\n")]));
    const r = await runFieldtest(READERS[kind]!(input));
    expect([r.code, r.stderr]).toEqual([2, `fieldtest: ${input}: not valid UTF-8 (byte offset 16)\n`]);
  });

  it("a limit that is not a positive number of MiB is bad input naming the variable", async () => {
    const r = await runFieldtest(READERS.goal!(goal), { FIELDTEST_MAX_FILE_MB: "lots" });
    expect([r.code, r.stderr]).toEqual([2, 'fieldtest: environment: FIELDTEST_MAX_FILE_MB: expected a positive number of MiB, got "lots"\n']);
  });

  it("the default limit is 16 MiB: a goal of 17 MiB is refused", async () => {
    const input = file("huge-goal.yaml", `id: g\n#${"x".repeat(17 * 1024 * 1024)}\n`);
    const r = await runFieldtest(READERS.goal!(input));
    expect([r.code, r.stderr]).toEqual([
      2,
      `fieldtest: ${input}: larger than the 16 MiB a file read whole may be (set FIELDTEST_MAX_FILE_MB, in MiB, to raise it)\n`,
    ]);
  });
});
