import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../bin/fieldtest.js", import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });

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

describe("fieldtest check (spawned)", () => {
  it("exits 0 on a plan that passes every gate", () => {
    const r = run("check", "--goal", goal, "--plan", file("pass.yaml", planText(", rollback: {trigger: check, action: undo, restores: [db]}")));
    expect([r.status, r.stdout]).toEqual([0, "pass: plan p passes every gate\n"]);
  });

  it("exits 1 with the findings grouped by task, and prints the verdict as JSON with --json", () => {
    const blocked = file("blocked.yaml", planText(""));
    const human = run("check", "--goal", goal, "--plan", blocked);
    expect(human.status).toBe(1);
    expect(human.stdout).toBe(
      "blocked: 1 gate blocker in plan p\n  migrate\n    rollback_missing [rollback_present, weak_rollback]: high-blast reversible task migrate has no rollback\n",
    );
    const json = run("check", "--goal", goal, "--plan", blocked, "--json");
    expect(json.status).toBe(1);
    const out = JSON.parse(json.stdout) as { verdict: string; findings: { key: string }[] };
    expect([out.verdict, out.findings.map((f) => f.key)]).toEqual(["blocked", ["rollback_present:rollback_missing:migrate:rollback"]]);
  });

  it("exits 2 with one line naming file, line and key path on a structurally invalid plan", () => {
    const invalid = file("invalid.yaml", planText(", rollback: {trigger: chek, action: undo, restores: [db]}"));
    const r = run("check", "--goal", goal, "--plan", invalid);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`fieldtest: ${invalid}:4: tasks[0].rollback.trigger: "chek" names no task of the plan\n`);
  });
});

describe("fieldtest canary and schema (spawned)", () => {
  it("canary exits 0 when every gate behaves", () => {
    const r = run("canary");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^canary: ok \(\d+ checks on \d+ fixtures\)\n$/);
  });

  it("schema critic prints the JSON Schema of the critic output", () => {
    const schema = JSON.parse(execFileSync(process.execPath, [BIN, "schema", "critic"], { encoding: "utf8" })) as { required: string[] };
    expect(schema.required).toEqual(["findings"]);
  });
});
