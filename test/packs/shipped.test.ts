import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { judgePackCanaries } from "../../src/packs/canary.ts";
import { loadPack } from "../../src/packs/load.ts";
import { SHIPPED_PACKS_DIR } from "../../harness/packs.ts";
import type { CompiledPack } from "../../src/packs/compile.ts";

const names = readdirSync(SHIPPED_PACKS_DIR).sort();
const packs = names.map((n) => loadPack(join(SHIPPED_PACKS_DIR, n)));

describe("the shipped packs", () => {
  it("are security and two more domains of the corpus", () => {
    expect(names).toEqual(["data-engineering", "finops", "security"]);
    expect(packs.map((p) => p.name)).toEqual(names);
  });

  it("security has the rules the issue asks for", () => {
    const security = packs.find((p) => p.name === "security")!;
    expect(security.rules.map((r) => r.code)).toEqual(
      expect.arrayContaining(["public_ingress_on_production", "wildcard_principal_on_production", "credential_revoked_before_replacement", "audit_logging_disabled_without_restore", "secret_in_produced_artefact"]),
    );
  });

  it.each(packs.map((p) => [p.name, p] as [string, CompiledPack]))("%s: every rule fires on its must-fire canaries and stays silent on its twins", (_name, pack) => {
    const judged = judgePackCanaries(pack);
    expect(judged.failures).toEqual([]);
    for (const rule of pack.rules) {
      const rows = judged.results.filter((r) => r.code === rule.code);
      expect([rule.code, rows.some((r) => r.expect === "fire"), rows.some((r) => r.expect === "silent")]).toEqual([rule.code, true, true]);
    }
  });

  it.each(packs.flatMap((p) => p.rules.map((r) => [`${p.name}/${r.code}`, p, r.code] as [string, CompiledPack, string])))(
    "%s: a rule that never fires fails its canary, naming the pack and the rule",
    (_label, pack, code) => {
      const muted: CompiledPack = { ...pack, rules: pack.rules.map((r) => (r.code === code ? { ...r, when: () => false } : r)) };
      const failures = judgePackCanaries(muted).failures;
      expect(failures.length).toBeGreaterThan(0);
      for (const f of failures) expect(f).toMatch(new RegExp(`^${pack.gate.replace(".", "\\.")}: ${pack.name}/canaries/[a-z-]+\\.yaml#[a-z0-9-]+: rule ${code} is silent on its must-fire canary$`));
    },
  );
});
