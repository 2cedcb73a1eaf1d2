import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffSnapshots } from "../../harness/baseline/diff.ts";
import { snapshotOfRun } from "../../harness/baseline/io.ts";
import { readManifest } from "../../harness/run/manifest.ts";
import { readTrialLog } from "../../harness/run/store.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import { PLANNER_PROMPT } from "../../src/critic/prompts/index.ts";
import { GATE_VERSIONS } from "../../src/gates/index.ts";
import { SHIPPED_PACKS_DIR } from "../../harness/packs.ts";
import { plan, rulePack, writePack } from "../packs/helpers.ts";
import { cli, tempDir, testHost } from "./helpers.ts";

/** The four finops goals and a boundary fixture, one trial each. */
const base = { only: "fin-*,boundary/clean-latency-bi-sequential", trials: "1" };
let root: string;
let plain: string;

async function sweep(name: string, flags: Record<string, unknown>) {
  const out = join(root, name);
  const host = testHost();
  const code = await runSweep(cli({ ...base, ...flags, out }), {}, realEngine({}), host);
  return { code, out, host };
}

/** A copy of a shipped pack that the test may edit. */
function copyPack(name: string, to: string): string {
  const dir = join(root, to);
  cpSync(join(SHIPPED_PACKS_DIR, name), dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  root = tempDir("ft-packs-");
  const r = await sweep("plain", {});
  expect(r.code, r.host.stderr.text).toBe(0);
  plain = r.out;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("fieldtest run --pack", () => {
  it("a rule silent on its must-fire canary stops the sweep before any LLM call: exit 3, naming the pack and the rule", async () => {
    const dir = copyPack("finops", "broken-finops");
    const file = join(dir, "pack.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace("task.attributes.monthly_cost_delta_usd > 5000", "task.attributes.monthly_cost_delta_usd > 50000"));
    const { code, out, host } = await sweep("broken", { pack: [dir] });
    expect(code).toBe(3);
    expect(host.stderr.text).toContain("canary failed, no LLM call was made");
    expect(host.stderr.text).toContain(
      "pack.finops: finops/canaries/finops.yaml#spend-unapproved: rule spend_increase_without_approval is silent on its must-fire canary",
    );
    const manifest = readManifest(out);
    expect([manifest.state, manifest.totals.calls, manifest.canary?.ok]).toEqual(["canary_failed", 0, false]);
    expect(readTrialLog(out).records).toEqual([]);
  });

  it("a rule that errors on the sweep's plans blocks them (fail closed) and every report says so, naming the rule", async () => {
    // Its canaries give every task a target; the sweep's plans have tasks without one, where the rule cannot be judged.
    const cases = [true, false].map((open, i) => ({
      name: `case-${i}`,
      note: open ? "Opens" : "Does not",
      ...(open ? { fires: ["opened"] } : { silent_for: ["opened"] }),
      plan: plan([{ id: "a", description: "A", kind: "mutate", target: "t", attributes: { open } }]),
    }));
    const dir = writePack(rulePack({ rule: { when: "task.attributes.open == true || task.id.startsWith(task.target)" }, cases }));
    const { code, out, host } = await sweep("rule-errors", { pack: [dir] });
    expect(code, host.stderr.text).toBe(0);
    const warning = /^rule opened of pack\.test could not be judged in (\d+) trial\(s\): it blocked them, fail closed/;
    expect(host.stdout.text).toMatch(new RegExp(`\nwarning: ${warning.source.slice(1)}`));
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { warnings: string[] };
    expect(summary.warnings).toContainEqual(expect.stringMatching(warning));
    expect(Number(summary.warnings.find((w) => warning.test(w))!.match(warning)![1])).toBeGreaterThan(0);
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("- **warning:** rule opened of pack.test could not be judged in");
  });

  it("without packs the config records no packs key and the gate versions are the built-in gates' alone", () => {
    const m = readManifest(plain);
    expect("packs" in m.config).toBe(false);
    expect(m.gate_versions).toEqual(GATE_VERSIONS);
  });

  it("with a pack: its name, version and content hash join the gate versions and the config hash; its folder does not", async () => {
    const a = await sweep("run-a", { pack: [copyPack("finops", "finops-a")] });
    const b = await sweep("run-b", { pack: [copyPack("finops", "finops-b")] });
    expect([a.code, b.code]).toEqual([0, 0]);
    const [ma, mb, m0] = [readManifest(a.out), readManifest(b.out), readManifest(plain)];
    expect(ma.gate_versions["pack.finops"]).toMatch(/^finops@1\.0\.0 sha256:[0-9a-f]{64} evaluator \d+$/);
    expect(ma.config.packs).toEqual([join(root, "finops-a")]);
    expect(ma.config_hash).not.toBe(m0.config_hash);
    expect(mb.config_hash).toBe(ma.config_hash);
    expect(ma.canary?.ok).toBe(true);
    // finops declares attributes, so the planner is asked for them: the manifest records the prompt and schema sent.
    const plannerCall = readTrialLog(a.out)
      .records.find((r) => r.suite === "corpus")!
      .calls.find((c) => c.role === "planner")!;
    const recorded = ma.roles.planner as unknown as { prompt: { system_sha256: string; schema_sha256: string } };
    expect(recorded.prompt.system_sha256).toBe(plannerCall.context.system_prompt_sha256);
    expect(recorded.prompt.schema_sha256).toBe(plannerCall.context.schema_sha256);
    expect(recorded.prompt.system_sha256).not.toBe(PLANNER_PROMPT.system_sha256);
    expect((m0.roles.planner as unknown as { prompt: { system_sha256: string } }).prompt.system_sha256).toBe(PLANNER_PROMPT.system_sha256);
  });

  it("pack findings are gate findings in the trials, and a diff attributes their deltas to the pack's version", async () => {
    // The sim's plans carry no attributes and destroy nothing, so the shipped packs are silent on them; this one is not.
    const dir = writePack(
      rulePack({
        manifest: { name: "change-approval", attributes: {} },
        rule: {
          code: "approval_missing",
          when: "task.kind == 'mutate' && task.high_blast && !plan.tasks.exists(a, a.kind == 'approve' && a.step < task.step)",
          message: "{{task.id}} runs without an approval",
        },
        cases: [
          { name: "unapproved", note: "n", fires: ["approval_missing"], plan: plan([{ id: "m", description: "M", kind: "mutate", risk: "high" }]) },
          {
            name: "approved",
            note: "n",
            silent_for: ["approval_missing"],
            plan: plan([
              { id: "a", description: "A", kind: "approve" },
              { id: "m", description: "M", kind: "mutate", risk: "high" },
            ]),
          },
        ],
      }),
    );
    const { code, out } = await sweep("approval", { pack: [dir] });
    expect(code).toBe(0);
    const packFindings = readTrialLog(out).records.flatMap((r) =>
      r.rounds.flatMap((round) => round.gate_findings.filter((f) => f.gate === "pack.change-approval")),
    );
    expect(packFindings.length).toBeGreaterThan(0);
    for (const f of packFindings)
      expect(f).toMatchObject({
        origin: "gate",
        severity: "blocker",
        code: "approval_missing",
        key: expect.stringMatching(/^pack\.change-approval:approval_missing:[a-z0-9_.-]+:$/),
      });
    const diff = diffSnapshots(snapshotOfRun(plain, "corpus"), snapshotOfRun(out, "corpus"), 0.05);
    expect(diff.differences).toEqual([expect.objectContaining({ kind: "gate_version", part: "gate_versions.pack.change-approval", baseline: null })]);
    expect(diff.deltas.length).toBeGreaterThan(0);
    expect(diff.unexplained).toEqual([]);
    // Every delta names the pack's version among its causes; those beyond the per-item noise test are
    // attributed to it (docs/design.md §11: with few trials per item a change can stay within noise).
    expect(diff.deltas.every((d) => d.causes.some((c) => c.part === "gate_versions.pack.change-approval"))).toBe(true);
    expect(diff.deltas.filter((d) => d.beyond_noise).every((d) => d.attribution === "cause")).toBe(true);
  });

  it("a resume refuses a pack whose content changed since the run started, naming it", async () => {
    const dir = copyPack("finops", "finops-resume");
    const { out } = await sweep("resume", { pack: [dir] });
    const file = join(dir, "pack.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace("Estimated change of monthly spend", "Estimated monthly spend change"));
    await expect(runSweep(cli({ resume: out }), {}, realEngine({}), testHost())).rejects.toThrow(
      /differs from the recorded run, refusing to resume:[\s\S]*fingerprint\.gate_versions\.pack\.finops/,
    );
  });

  it("an invalid pack is invalid input before anything is written", async () => {
    const dir = copyPack("security", "bad-security");
    const file = join(dir, "pack.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace("task.attributes.cidr in", "task.attributes.cidrs in"));
    await expect(sweep("bad", { pack: [dir] })).rejects.toThrow(
      /pack\.yaml:\d+: rules\[0\]\.when: rule public_ingress_on_production: at 1:\d+: unknown field 'cidrs'/,
    );
  });
});
