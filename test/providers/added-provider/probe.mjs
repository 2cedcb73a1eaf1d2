// Run under `node --import ./register.mjs` (registry-extension.test.ts): exercises the compiled
// harness with the `acme` provider added to the registry, and prints what it saw as one JSON line.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import * as registry from "../../../dist/src/providers/registry.js";
import { cannedAnswer, preloadLive } from "../../../dist/src/providers/adapters.js";
import { checkApiKeys, liveProvidersOf } from "../../../dist/src/providers/api-keys.js";
import { createModelClient } from "../../../dist/src/providers/client.js";
import { ClientConfigSchema } from "../../../dist/src/providers/config.js";
import { environmentKeys } from "../../../dist/src/providers/credentials.js";
import { isBilled } from "../../../dist/src/providers/prices.js";
import { runCli } from "../../../dist/harness/cli/program.js";

const KEY = "acme-key-0123456789abcdef";
const acme = { provider: "acme", model: "a-1" };
const sim = { provider: "sim", model: "sim-critic-1" };

function capture() {
  const s = { text: "", isTTY: false, write: (chunk) => ((s.text += chunk), true) };
  return s;
}

/** `fieldtest ...argv` in this process, with `env` its whole environment. */
async function fieldtest(argv, env = {}) {
  const host = {
    now: () => new Date(),
    randomId: () => "p0",
    argv,
    env,
    stdout: capture(),
    stderr: capture(),
    onSignal: () => () => {},
    git: async () => ({ sha: null, dirty: null }),
    harnessVersion: "probe",
  };
  const code = await runCli(host);
  return { code, stdout: host.stdout.text, stderr: host.stderr.text };
}

function keyError(config, env) {
  try {
    checkApiKeys(config, env);
    return null;
  } catch (e) {
    return e.message;
  }
}

const out = mkdtempSync(join(tmpdir(), "ft-added-provider-"));
try {
  const client = createModelClient({ planner: acme, critic: sim }, { env: { ACME_API_KEY: KEY } });
  const request = { role: "planner", itemId: "i", trial: 0, round: 0, system: "s", userTemplate: "u", user: "u", schemaName: "ok", schema: { type: "object" } };
  const answered = await client.structured(request, z.looseObject({ ok: z.literal(true), vendor: z.boolean(), keyed: z.boolean() }));
  const call = answered.calls[0];
  const only = ["--only", "corpus/dns-01-*", "--trials", "1"];
  const facts = {
    exports: Object.keys(registry)
      .filter((k) => k !== "REAL_EXPORTS")
      .sort(),
    realExports: [...registry.REAL_EXPORTS].sort(),
    wireProviders: registry.WIRE_PROVIDERS,
    liveProviders: registry.LIVE_PROVIDERS,
    config: {
      role: ClientConfigSchema.safeParse({ planner: acme, critic: sim }).success,
      replayAs: ClientConfigSchema.safeParse({ planner: { provider: "replay", model: "a-1", replay: { runDir: "r", as: "acme" } }, critic: sim }).success,
      unknown: ClientConfigSchema.safeParse({ planner: { provider: "nope", model: "a-1" }, critic: sim }).success,
    },
    keys: {
      missing: keyError({ planner: sim, critic: acme }, {}),
      given: keyError({ planner: sim, critic: acme }, { ACME_API_KEY: KEY }),
      otherHost: keyError({ planner: sim, critic: { ...acme, baseUrl: "http://127.0.0.1:8080/v1" } }, {}),
      vendorHost: keyError({ planner: sim, critic: { ...acme, baseUrl: "https://api.acme.test/v2" } }, {}),
      liveOf: liveProvidersOf({ planner: acme, critic: { provider: "replay", model: "a-1", replay: { runDir: "r", as: "acme", fallThrough: true } } }),
      environment: environmentKeys({ ACME_API_KEY: KEY, UNRELATED: "x" }),
    },
    billed: { acme: isBilled("acme"), sim: isBilled("sim") },
    call: { ok: answered.ok, value: answered.ok ? answered.value : null, context: call?.context, cost: call?.cost_usd },
    loading: { preloaded: (await preloadLive("acme")) === undefined, canned: await cannedAnswer("acme") },
    cli: {
      runHelp: (await fieldtest(["run", "--help"])).stdout,
      planHelp: (await fieldtest(["plan", "--help"])).stdout,
      planWithoutModel: await fieldtest(["plan", "--goal", "examples/goal.yaml", "--provider", "acme"]),
      runWithoutKey: await fieldtest(["run", "--provider", "acme", "--model", "a-1", ...only, "--out", join(out, "no-key")]),
      dryRun: await fieldtest(["run", "--provider", "acme", "--model", "a-1", ...only, "--dry-run"], { ACME_API_KEY: KEY }),
    },
  };
  process.stdout.write(`${JSON.stringify(facts)}\n`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
