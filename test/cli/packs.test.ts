import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runFieldtest } from "../helpers/cli.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const run = (...args: string[]) => runFieldtest(args);

const dir = mkdtempSync(join(tmpdir(), "fieldtest-cli-packs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

const goal = file("goal.yaml", "id: g\ndomain: networking\ntitle: T\ndescription: D\nrisk_tolerance: strict\nconstraints: {environment: production}\n");
const plan = (cidr: string) =>
  file(
    `plan-${cidr.replace(/\W/g, "")}.yaml`,
    `id: p\ngoal_id: g\ntasks:\n  - {id: open, description: Open the port, kind: mutate, attributes: {cidr: "${cidr}"}}\n`,
  );

/** A copy of the security pack whose first rule's condition is replaced. */
function securityWith(name: string, find: string, replace: string): string {
  const target = join(dir, name);
  cpSync(join(ROOT, "packs/security"), target, { recursive: true });
  const manifest = join(target, "pack.yaml");
  writeFileSync(manifest, readFileSync(manifest, "utf8").replace(find, replace));
  return target;
}

describe("fieldtest check --pack (in process)", () => {
  it("a pack rule blocks (exit 1) and prints its finding beside the gates'; its near twin passes (exit 0)", async () => {
    const r = await run("check", "--goal", goal, "--plan", plan("0.0.0.0/0"), "--pack", join(ROOT, "packs/security"), "--json");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      verdict: "blocked",
      findings: [
        {
          origin: "gate",
          gate: "pack.security",
          code: "public_ingress_on_production",
          family: "risk",
          severity: "blocker",
          task_id: "open",
          message: "task open admits ingress from 0.0.0.0/0 on a production target",
          key: "pack.security:public_ingress_on_production:open:",
        },
      ],
    });
    expect((await run("check", "--goal", goal, "--plan", plan("203.0.113.0/24"), "--pack", join(ROOT, "packs/security"))).code).toBe(0);
  });

  it("a CEL error is invalid input: exit 2, one line naming the pack file, rule and position", async () => {
    const broken = securityWith("typo", "task.attributes.cidr in", "task.attributes.cdr in");
    const r = await run("check", "--goal", goal, "--plan", plan("0.0.0.0/0"), "--pack", broken);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      expect.stringMatching(
        /^fieldtest: .*typo\/pack\.yaml:\d+: rules\[0\]\.when: rule public_ingress_on_production: at 1:\d+: unknown field 'cdr' on task\.attributes/,
      ),
    ]);
  });
});

describe("fieldtest canary --pack (in process)", () => {
  it("runs the shipped packs' canaries after the gates' (exit 0)", async () => {
    const r = await run("canary", "--pack", join(ROOT, "packs/security"), "--pack", join(ROOT, "packs/finops"), "--pack", join(ROOT, "packs/data-engineering"));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^canary: ok \(\d+ checks on \d+ fixtures\)\n$/);
  });

  it("exits 3 naming the pack and the rule that is silent on its must-fire canary", async () => {
    const silent = securityWith("silent", "task.attributes.cidr in ['0.0.0.0/0', '::/0']", "task.attributes.cidr in ['::/0']");
    const r = await run("canary", "--pack", silent);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(
      "pack.security: security/canaries/exposure.yaml#ingress-world: rule public_ingress_on_production is silent on its must-fire canary",
    );
  });

  it("fieldtest check --pack refuses to judge a plan when a pack canary fails (exit 3): the broken rule would pass the very plan it exists to block", async () => {
    const silent = securityWith("silent-check", "task.attributes.cidr in ['0.0.0.0/0', '::/0']", "task.attributes.cidr in ['::/0']");
    const r = await run("check", "--goal", goal, "--plan", plan("0.0.0.0/0"), "--pack", silent);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^fieldtest: pack canary failed, the plan was not checked:\n {2}pack\.security: .*rule public_ingress_on_production is silent on its must-fire canary/,
    );
  });

  it("fieldtest plan --pack refuses to call a model when a pack canary fails (exit 3)", async () => {
    const silent = securityWith("silent-plan", "task.attributes.cidr in ['0.0.0.0/0', '::/0']", "task.attributes.cidr in ['::/0']");
    const r = await run("plan", "--goal", goal, "--pack", silent);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("pack canary failed, no LLM call was made");
  });
});
