import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fieldtest as run } from "../helpers/cli.ts";

const dir = mkdtempSync(join(tmpdir(), "fieldtest-cli-check-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

const goal = file("goal.yaml", "id: g\ndomain: d\ntitle: T\ndescription: D\nrisk_tolerance: strict\n");
const planText = (rollback: string) =>
  [
    "id: p",
    "goal_id: g",
    "tasks:",
    "  - {id: migrate, description: Migrate, kind: mutate, risk: high, mutates: [db], produces: [db.report]" + rollback + "}",
    "  - {id: check, description: Check, kind: verify, verifies: {task: migrate, subject: mutation_output, reads: [db.report]}}",
    "dependencies: [{from: migrate, to: check}]",
    "",
  ].join("\n");

describe("fieldtest check (in process)", () => {
  it("exits 0 on a plan that passes every gate", async () => {
    const r = await run("check", "--goal", goal, "--plan", file("pass.yaml", planText(", rollback: {trigger: check, action: undo, restores: [db]}")));
    expect([r.code, r.stdout]).toEqual([0, "pass: plan p passes every gate\n"]);
  });

  it("exits 1 with the findings grouped by task, and prints the verdict as JSON with --json", async () => {
    const blocked = file("blocked.yaml", planText(""));
    const human = await run("check", "--goal", goal, "--plan", blocked);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe(
      "blocked: 1 gate blocker in plan p\n  migrate\n    rollback_missing [rollback_present, weak_rollback]: high-blast reversible task migrate has no rollback\n",
    );
    const json = await run("check", "--goal", goal, "--plan", blocked, "--json");
    expect(json.code).toBe(1);
    const out = JSON.parse(json.stdout) as { verdict: string; findings: { key: string }[] };
    expect([out.verdict, out.findings.map((f) => f.key)]).toEqual(["blocked", ["rollback_present:rollback_missing:migrate:rollback"]]);
  });

  it("exits 2 with one line naming file, line and key path on a structurally invalid plan", async () => {
    const invalid = file("invalid.yaml", planText(", rollback: {trigger: chek, action: undo, restores: [db]}"));
    const r = await run("check", "--goal", goal, "--plan", invalid);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`fieldtest: ${invalid}:4: tasks[0].rollback.trigger: "chek" names no task of the plan\n`);
  });
});

describe("fieldtest canary and schema (in process)", () => {
  it("canary exits 0 when every gate behaves", async () => {
    const r = await run("canary");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^canary: ok \(\d+ checks on \d+ fixtures\)\n$/);
  });

  it("schema critic prints the JSON Schema of the critic output", async () => {
    const r = await run("schema", "critic");
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.stdout) as { required: string[] };
    expect(schema.required).toEqual(["findings"]);
  });
});
