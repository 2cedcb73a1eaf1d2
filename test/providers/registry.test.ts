import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../harness/package.ts";
import { createInProcessAdapter, createLiveAdapter } from "../../src/providers/adapters.ts";
import { publicBaseUrl } from "../../src/providers/endpoint.ts";
import { LIVE_PROVIDERS, liveDefinition, PROVIDERS, providerRegistry, WIRE_PROVIDERS } from "../../src/providers/registry.ts";
import { runFieldtest } from "../helpers/cli.ts";
import { NODE_FLAGS } from "../helpers/node-flags.ts";

/** Help text with its line wrapping undone. */
const unwrapped = (text: string) => text.replace(/\s+/g, " ");

describe("the provider registry", () => {
  it("names the sim first (the default), OpenAI and Anthropic; the live providers are its HTTP ones", () => {
    expect(WIRE_PROVIDERS[0]).toBe("sim");
    expect(WIRE_PROVIDERS).toEqual(expect.arrayContaining(["openai", "anthropic"]));
    expect(LIVE_PROVIDERS).toEqual(PROVIDERS.filter((p) => p.kind === "http").map((p) => p.id));
    expect(LIVE_PROVIDERS).not.toContain("sim");
  });

  it("refuses two providers of one id, and the id a replay takes", () => {
    const [sim, openai] = PROVIDERS;
    expect(() => providerRegistry([sim, openai, { ...openai }])).toThrow(/distinct/);
    expect(() => providerRegistry([sim, { ...sim, id: "replay" }])).toThrow(/replay/);
  });

  it("builds each provider's adapter from its entry: its id, its SDK's name and (a vendor's) its default endpoint", async () => {
    for (const provider of LIVE_PROVIDERS) {
      const { sdk, defaultBaseUrl } = liveDefinition(provider);
      const adapter = await createLiveAdapter(provider, { model: "m" }, { apiKey: "k", now: Date.now });
      expect(adapter, provider).toMatchObject({ provider, sdk, baseUrl: publicBaseUrl(defaultBaseUrl) });
    }
    const sim = await createInProcessAdapter("sim", { model: "m" }, { sleep: async () => {}, settings: undefined });
    expect(sim).toMatchObject({ provider: "sim", sdk: "fieldtest-sim", baseUrl: null });
    await expect(createInProcessAdapter("openai", { model: "m" }, { sleep: async () => {}, settings: undefined })).rejects.toThrow(/in-process/);
  });

  it("is where the CLI's provider choices come from", async () => {
    const choices = WIRE_PROVIDERS.join(" | ");
    expect(unwrapped((await runFieldtest(["run", "--help"])).stdout)).toContain(`provider for both roles: ${choices} (replay: see --replay)`);
    expect(unwrapped((await runFieldtest(["plan", "--help"])).stdout)).toContain(`provider of both roles: ${choices} (default: "sim")`);
  });
});

/**
 * A provider added in one place, the registry's list (test/providers/added-provider/registry.mjs,
 * put in place of the compiled registry by a module hook), is seen by everything that names
 * providers: config parsing, the key check and its endpoint default, loading, billing, the
 * client's call records and the CLI's choices and messages. The harness runs compiled in a
 * process of its own (probe.mjs), so the one substitution reaches every module that imports it.
 */
describe("a provider added to the registry's list", () => {
  const dir = join(import.meta.dirname, "added-provider");
  const KEY = "acme-key-0123456789abcdef";
  const missingKey =
    "ACME_API_KEY is not set: the critic uses acme at https://api.acme.test/v1 (set it in the environment, or pass --base-url for a server that needs no key)";
  // What probe.mjs prints: see there.
  let seen: {
    exports: string[];
    realExports: string[];
    wireProviders: string[];
    liveProviders: string[];
    config: Record<string, boolean>;
    keys: { missing: string | null; given: string | null; otherHost: string | null; vendorHost: string | null; liveOf: string[]; environment: string[] };
    billed: Record<string, boolean>;
    call: { ok: boolean; value: unknown; context: Record<string, unknown>; cost: number | null };
    loading: { preloaded: boolean; canned: string };
    cli: Record<"runHelp" | "planHelp", string> & Record<"planWithoutModel" | "runWithoutKey" | "dryRun", { code: number; stdout: string; stderr: string }>;
  };

  beforeAll(async () => {
    const probe = await execa(process.execPath, [...NODE_FLAGS, "--import", join(dir, "register.mjs"), join(dir, "probe.mjs")], { cwd: PACKAGE_ROOT });
    seen = JSON.parse(probe.stdout);
  }, 60_000);

  it("stands in for the whole registry module: every export, derived from the longer list", () => {
    expect(seen.exports).toEqual(seen.realExports);
    expect(seen.wireProviders).toEqual([...WIRE_PROVIDERS, "acme"]);
    expect(seen.liveProviders).toEqual([...LIVE_PROVIDERS, "acme"]);
  });

  it("is a provider the config accepts, for a role and as what a replay renders", () => {
    expect(seen.config).toEqual({ role: true, replayAs: true, unknown: false });
  });

  it("needs its key at its default endpoint (or on its host), not elsewhere, and its key is masked", () => {
    expect(seen.keys).toEqual({ missing: missingKey, given: null, otherHost: null, vendorHost: missingKey, liveOf: ["acme"], environment: [KEY] });
  });

  it("loads its adapter and SDK when asked, bills per its entry, and its calls record its id, SDK and endpoint", () => {
    expect(seen.loading).toEqual({ preloaded: true, canned: JSON.stringify({ ok: true }) });
    expect(seen.billed).toEqual({ acme: true, sim: false });
    expect(seen.call).toMatchObject({ ok: true, value: { ok: true, vendor: true, keyed: true }, cost: null });
    expect(seen.call.context).toMatchObject({ provider: "acme", sdk: "acme-sdk", sdk_version: "9.9.9", base_url: "https://api.acme.test/v1", model: "a-1" });
  });

  it("is among the CLI's choices, needs a model, is refused without its key before any work, and is priced in a dry run", () => {
    const choices = [...WIRE_PROVIDERS, "acme"].join(" | ");
    expect(unwrapped(seen.cli.runHelp)).toContain(`provider for both roles: ${choices} (replay: see --replay)`);
    expect(unwrapped(seen.cli.planHelp)).toContain(`provider of both roles: ${choices} (default: "sim")`);
    expect(seen.cli.planWithoutModel).toMatchObject({
      code: 2,
      stderr: 'fieldtest: command line: --planner-model: provider "acme" needs a model (--model or --planner-model)\n',
    });
    expect(seen.cli.runWithoutKey).toMatchObject({ code: 2, stderr: `fieldtest: environment: ${missingKey.replace("critic", "planner")}\n` });
    expect(seen.cli.dryRun.code).toBe(0);
    expect(seen.cli.dryRun.stdout).toMatch(/planner\s+acme\/a-1\s.*unknown/);
  });
});
