import { describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../src/formats/load.ts";
import { loadPack, loadPacks, PACK_EVALUATOR_VERSION, packVersions } from "../../src/packs/load.ts";
import { plan, rulePack, writePack } from "./helpers.ts";

const closedCase = { name: "closed", note: "Does not", silent_for: ["opened"], plan: plan([{ id: "a", description: "A", kind: "mutate", attributes: { open: false } }]) };
const openCase = { name: "open", note: "Opens", fires: ["opened"], plan: plan([{ id: "a", description: "A", kind: "mutate", attributes: { open: true } }]) };

describe("loading a pack", () => {
  it("compiles its rules and reads its canaries; the gate is pack.<name>", () => {
    const pack = loadPack(writePack(rulePack()));
    expect([pack.name, pack.version, pack.gate, pack.rules.map((r) => r.code), pack.canaries.map((c) => c.name)]).toEqual(["test", "1.0.0", "pack.test", ["opened"], ["rules.yaml"]]);
    expect(pack.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ["no must-fire canary", [closedCase], /rules\[0\]: rule opened has no must-fire canary in .*canaries\/: every rule needs both, so the pack is refused/],
    ["no must-not-fire canary", [openCase], /rule opened has no must-not-fire canary/],
  ])("refuses a pack with %s (invalid input, naming the rule)", (_what, cases, message) => {
    const dir = writePack(rulePack({ cases }));
    expect(() => loadPack(dir)).toThrow(InputError);
    expect(() => loadPack(dir)).toThrow(message);
  });

  it("refuses a canary that names a code the pack has no rule for, naming the file and case", () => {
    const dir = writePack(rulePack({ cases: [openCase, closedCase, { ...closedCase, name: "typo", silent_for: ["opend"] }] }));
    expect(() => loadPack(dir)).toThrow(/canaries\/rules\.yaml: cases\[2\]\.silent_for\[0\]: "opend" is not a rule of pack test/);
  });

  it("is invalid input for a missing folder, a folder without pack.yaml, and a manifest that breaks the schema", () => {
    expect(() => loadPack("/no/such/pack")).toThrow(/\/no\/such\/pack: pack folder not found/);
    const dir = writePack(rulePack());
    expect(() => loadPack(join(dir, "canaries"))).toThrow(/not a pack folder: it has no pack\.yaml/);
    const bad = rulePack({ manifest: { version: "1.0" } });
    expect(() => loadPack(writePack(bad))).toThrow(/pack\.yaml:\d+: version: versions are MAJOR\.MINOR\.PATCH/);
    const unknown = rulePack({ rule: { severity: "warning" } });
    expect(() => loadPack(writePack(unknown))).toThrow(/rules\[0\]\.severity: unknown key "severity"/);
  });

  it("hashes content, not layout: a comment leaves the hash, a changed rule moves it", () => {
    const dir = writePack(rulePack());
    const before = loadPack(dir).hash;
    const file = join(dir, "pack.yaml");
    writeFileSync(file, `# a comment\n${readFileSync(file, "utf8")}`);
    expect(loadPack(dir).hash).toBe(before);
    writeFileSync(file, readFileSync(file, "utf8").replace("Nothing is opened", "Nothing is ever opened"));
    expect(loadPack(dir).hash).not.toBe(before);
  });

  it("loads packs in name order, refuses two packs of one name and an attribute declared with two types", () => {
    const b = writePack(rulePack({ manifest: { name: "beta" } }));
    const a = writePack(rulePack({ manifest: { name: "alpha" } }));
    expect(loadPacks([b, a, b]).map((p) => p.name)).toEqual(["alpha", "beta"]);
    expect(() => loadPacks([a, writePack(rulePack({ manifest: { name: "alpha" } }))])).toThrow(/pack "alpha" is already enabled from/);
    const clash = rulePack({ manifest: { name: "gamma", attributes: { open: { type: "string", description: "x" } } }, rule: { when: "task.attributes.open == 'yes'" } });
    clash.canaries["rules.yaml"].cases = [
      { ...openCase, plan: plan([{ id: "a", description: "A", kind: "mutate", attributes: { open: "yes" } }]) },
      closedCase,
    ];
    expect(() => loadPacks([a, writePack(clash)])).toThrow(/attributes\.open: is declared string here and boolean by pack alpha/);
  });

  it("records name, version and content hash beside the gate versions", () => {
    const pack = loadPack(writePack(rulePack()));
    expect(packVersions([pack])).toEqual({ "pack.test": `test@1.0.0 sha256:${pack.hash} evaluator ${PACK_EVALUATOR_VERSION}` });
  });
});
