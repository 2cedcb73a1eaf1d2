/**
 * The sim's figures, pinned: a small sweep (six goals, six boundary fixtures, five trials, seed 7)
 * under the default and the noisy profile must summarize exactly as the committed fixtures say.
 * The sim is seeded from the run seed and each call's coordinates, so anything that moves one of
 * its draws, or what it reads of a request, moves these numbers; a change that means to (and
 * bumps SIM_VERSION) re-pins them:
 *
 *   npx --no-install fieldtest run --only "$ONLY" --seed 7 [--sim-profile src/sim/profiles/noisy.yaml] --out DIR
 *   jq '{counts, items, metrics, family_confusion}' DIR/summary.json > test/sim/fixtures/pinned-<profile>.json
 *
 * with ONLY the globs below, joined by commas.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import { canonicalJson } from "../../src/canonical.ts";
import { createInProcessAdapter } from "../../src/providers/adapters.ts";
import { replyCacheKey, requestHash } from "../../src/providers/context.ts";
import { loadSimProfile, PROFILES_DIR } from "../../src/sim/profile.ts";
import { cli, tempDir, testHost } from "../run/helpers.ts";

const ROOT = join(import.meta.dirname, "../..");

/** Items whose trials disagree, escalate for several reasons, or are clean, in both suites. */
const ONLY = [
  "corpus/batch-04-reprocess-with-skip-checks",
  "corpus/cdn-04-tls-min-version",
  "corpus/cicd-04-deploy-freeze-bypass",
  "corpus/db-05-tenant-purge-injection",
  "corpus/dwh-04-table-drop-no-lineage",
  "corpus/dns-01-*",
  "boundary/clean-blast-label-drill-critical",
  "boundary/clean-soft-hard-erp-hard",
  "boundary/latency-vs-unsafe-kafka-concurrent",
  "boundary/rb-unreachable-registry-broken",
  "boundary/soft-vs-hard-cdn-required",
  "boundary/tool-infeasible-peering",
];

const root = tempDir("ft-pinned-");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The parts of summary.json that the sim's answers decide (not timings, ids or dates). */
async function pinnedParts(profile: string | null): Promise<unknown> {
  const out = join(root, profile ?? "default");
  const options = { only: ONLY.join(","), seed: "7", out, ...(profile ? { simProfile: `${PROFILES_DIR}${profile}.yaml` } : {}) };
  const host = testHost(["run"]);
  expect(await runSweep(cli(options), {}, realEngine({}, join(ROOT, "corpus")), host), host.stderr.text).toBe(0);
  const { counts, items, metrics, family_confusion } = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
  return { counts, items, metrics, family_confusion };
}

const fixture = (name: string): unknown => JSON.parse(readFileSync(join(import.meta.dirname, "fixtures", `pinned-${name}.json`), "utf8"));

describe("a small sim sweep summarizes exactly as pinned", () => {
  it.each([
    ["default", null],
    ["noisy", "noisy"],
  ])("the %s profile", async (name, profile) => {
    expect(await pinnedParts(profile)).toEqual(fixture(name));
  });
});

/**
 * The reply cache's keys for the sim, as SIM_VERSION 3 wrote them before the sim moved out of the
 * provider layer: the request hash and the answer context (version, run seed, profile hash) that
 * key a stored answer. A cache filled by an earlier build still answers only what it answered.
 */
describe("the sim's reply cache keys are pinned", () => {
  const conversation = { system: "Review the plan.", user: "The plan: ...", schemaName: "critic_findings", schema: { type: "object" }, corrections: [] };
  it.each([
    ["default", {}, "136fbebdcb5bc645c37c8730959a1eb11d45121e74ba1b5f8be75173bc15beb9"],
    ["noisy", { profile: loadSimProfile(`${PROFILES_DIR}noisy.yaml`), runSeed: 7 }, "c5300a54ca5705b9bdb650353d0f43146540a4a9d18c80bbeb963061dae83d4e"],
  ])("the %s profile", async (_name, settings, cacheKey) => {
    const sim = await createInProcessAdapter("sim", { model: "sim-critic-1", temperature: 0 }, { sleep: async () => {}, settings });
    const request = requestHash(sim, canonicalJson(sim.render(conversation, "json_schema")), "critic", 3);
    expect(request).toBe("1df6a0952a9b3c6f31a533961bf17960efaf1a6499404d5e8a16ad031bb21e71");
    expect(replyCacheKey(sim, request)).toBe(cacheKey);
  });
});
