import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigFileSchema } from "../../harness/config.ts";
import { redactArgv } from "../../harness/run/redact.ts";
import {
  configHash,
  diffValues,
  missingCredentials,
  recordedConfig,
  resolveRun,
  RunCliSchema,
  withheldCredentials,
  type RunCli,
} from "../../harness/run/settings.ts";
import { DEFAULT_SIM_PROFILE } from "../../src/sim/profile.ts";
import { RecordedConfigSchema } from "../../src/formats/run-config.ts";

const ctx = { loadProfile: () => DEFAULT_SIM_PROFILE };
const cli = (raw: Record<string, unknown>): RunCli => RunCliSchema.parse(raw);
const hashOf = (raw: Record<string, unknown>, file = {}) => configHash(resolveRun(file, cli(raw), ctx).config, { gates: "v1" });

const operationalArb = fc.record(
  {
    concurrency: fc.integer({ min: 1, max: 64 }).map(String),
    shard: fc.integer({ min: 1, max: 8 }).chain((n) => fc.integer({ min: 1, max: n }).map((i) => `${i}/${n}`)),
    budgetUsd: fc.double({ min: 0.01, max: 1000, noNaN: true }).map(String),
    maxCalls: fc.integer({ min: 1, max: 10_000 }).map(String),
    out: fc.stringMatching(/^[a-z/]{1,12}$/),
    force: fc.boolean(),
    dryRun: fc.boolean(),
  },
  { requiredKeys: [] },
);
const resultArb = fc.record(
  {
    trials: fc.integer({ min: 1, max: 9 }).map(String),
    seed: fc.integer({ min: 0, max: 99 }).map(String),
    mode: fc.constantFrom("gates-first", "every-round", "gates-only"),
    only: fc.constantFrom("db-*", "a*,b*"),
    temperature: fc.constantFrom("0", "0.7"),
  },
  { requiredKeys: [] },
);

describe("config hash", () => {
  it("ignores concurrency, shard, budget, output folder and the other operational options", () => {
    fc.assert(
      fc.property(resultArb, operationalArb, operationalArb, (result, a, b) => {
        expect(hashOf({ ...result, ...a })).toBe(hashOf({ ...result, ...b }));
      }),
    );
  });

  it("moves with every option that can change a result", () => {
    const base = hashOf({});
    for (const change of [
      { trials: "3" },
      { seed: "1" },
      { mode: "every-round" },
      { only: "db-*" },
      { temperature: "0.5" },
      { criticModel: "sim-critic-2" },
      { suite: "corpus" },
      { domain: "dns" },
      { category: "strict" },
    ]) {
      expect(hashOf(change), JSON.stringify(change)).not.toBe(base);
    }
    expect(configHash(resolveRun({}, cli({}), ctx).config, { gates: "v2" })).not.toBe(base);
  });

  it("moves with the sim profile's content", () => {
    const noisy = { ...DEFAULT_SIM_PROFILE, critic: { ...DEFAULT_SIM_PROFILE.critic, migration_rate: 0.5 } };
    const a = resolveRun({}, cli({ simProfile: "x.yaml" }), { loadProfile: () => noisy }).config;
    expect(configHash(a, {})).not.toBe(configHash(resolveRun({}, cli({}), ctx).config, {}));
  });

  it("does not move with a credential header's value, which is never recorded", () => {
    const a = resolveRun({}, cli({ header: ["Authorization=Bearer abcdefghijkl"] }), ctx).config;
    const b = resolveRun({}, cli({ header: ["Authorization=Bearer zzzzzzzzzzzz"] }), ctx).config;
    expect(configHash(a, {})).toBe(configHash(b, {}));
    expect(JSON.stringify(recordedConfig(a))).not.toContain("abcdefghijkl");
    expect(configHash(resolveRun({}, cli({ header: ["X-Tenant=blue"] }), ctx).config, {})).not.toBe(
      configHash(resolveRun({}, cli({ header: ["X-Tenant=red"] }), ctx).config, {}),
    );
  });
});

describe("resolution", () => {
  it("defaults: sim for both roles, 5 trials, seed 0, both suites", () => {
    const { config, operational } = resolveRun({}, cli({}), ctx);
    expect(config).toMatchObject({ trials: 5, seed: 0, suites: ["corpus", "boundary"], mode: "gates-first", maxRounds: 4 });
    expect(config.client.planner).toEqual({ provider: "sim", model: "sim-planner-1" });
    expect(config.client.sim?.runSeed).toBe(0);
    expect(operational).toEqual({ concurrency: 8, budgetUsd: null, maxCalls: null, shard: null });
  });

  it("CLI flags override the config file, which overrides the defaults", () => {
    const file = ConfigFileSchema.parse({ trials: 3, concurrency: 2, roles: { critic: { temperature: 0.2 } } });
    const { config, operational } = resolveRun(file, cli({ trials: "7" }), ctx);
    expect(config.trials).toBe(7);
    expect(operational.concurrency).toBe(2);
    expect(config.client.critic.temperature).toBe(0.2);
  });

  it("a live provider needs a model", () => {
    expect(() => resolveRun({}, cli({ provider: "openai" }), ctx)).toThrow(/needs a model/);
    expect(resolveRun({}, cli({ provider: "openai", model: "gpt-4o" }), ctx).config.client.critic.model).toBe("gpt-4o");
  });

  it("on resume the recorded config stands and only operational options move", () => {
    const first = resolveRun({}, cli({ trials: "2", seed: "4", budgetUsd: "1" }), ctx);
    const again = resolveRun({}, cli({ budgetUsd: "5" }), { ...ctx, recorded: first });
    expect(again.config).toEqual(first.config);
    expect(again.operational.budgetUsd).toBe(5);
  });

  it("on resume, simProfile: null in a config file asks for the default profile: a change from a recorded one, never ignored", () => {
    const noisy = { ...DEFAULT_SIM_PROFILE, critic: { ...DEFAULT_SIM_PROFILE.critic, migration_rate: 0.5 } };
    const first = resolveRun({}, cli({ simProfile: "noisy.yaml" }), { loadProfile: () => noisy });
    expect(resolveRun({}, cli({}), { ...ctx, recorded: first }).config).toEqual(first.config);
    const asked = resolveRun(ConfigFileSchema.parse({ simProfile: null }), cli({}), { ...ctx, recorded: first });
    expect(asked.config.client.sim?.profile).toEqual(DEFAULT_SIM_PROFILE);
    expect(configHash(asked.config, {})).not.toBe(configHash(first.config, {}));
  });

  it("suite imported is recorded by imported runs only: never selectable, never resumed", () => {
    expect(RunCliSchema.safeParse({ suite: "corpus,imported" }).success).toBe(false);
    expect(ConfigFileSchema.safeParse({ suites: ["imported"] }).success).toBe(false);
    const { config, operational } = resolveRun({}, cli({}), ctx);
    const imported = RecordedConfigSchema.parse({ ...config, suites: ["imported"] });
    expect(() => resolveRun({}, cli({}), { ...ctx, recorded: { config: imported, operational } })).toThrow(/imported run .* cannot be resumed/);
    expect(RecordedConfigSchema.safeParse({ ...config, suites: ["imported", "corpus"] }).success).toBe(false);
    expect(RecordedConfigSchema.safeParse({ ...config, suites: ["canary"] }).success).toBe(false);
    expect(RecordedConfigSchema.parse(config)).toEqual(config);
  });

  it("diffValues names each changed leaf", () => {
    expect(diffValues({ a: 1, b: { c: 2 } }, { a: 1, b: { c: 3 }, d: true }, "config")).toEqual(["config.b.c: 2 -> 3", "config.d: null -> true"]);
  });

  it("rejects unknown config-file keys", () => {
    expect(ConfigFileSchema.safeParse({ trails: 3 }).success).toBe(false);
  });
});

describe("redaction", () => {
  it("strips credential-looking --header values from the recorded command line", () => {
    const argv = [
      "run",
      "--header",
      "Authorization=Bearer sk-secret-value-123",
      "--header=X-Api-Key=abc123456789",
      "--header",
      "X-Tenant=blue",
      "--model",
      "m",
    ];
    const out = redactArgv(argv).join(" ");
    expect(out).not.toContain("sk-secret-value-123");
    expect(out).not.toContain("abc123456789");
    expect(out).toContain("X-Tenant=blue");
  });

  it("records every URL without userinfo or query, on the command line and in the config, and says what it withheld", () => {
    const url = "http://alice:pw-secret-1@127.0.0.1:8080/v1/?api-key=q-secret-2&x=1#frag";
    expect(redactArgv(["run", "--base-url", url, `--base-url=${url}`, "--note=see https://bob:pw-3@example.com/x?token=t-4"])).toEqual([
      "run",
      "--base-url",
      "http://127.0.0.1:8080/v1/",
      "--base-url=http://127.0.0.1:8080/v1/",
      "--note=see https://example.com/x",
    ]);
    expect(redactArgv(["http://plain.example/v1"])).toEqual(["http://plain.example/v1"]);
    const config = resolveRun({}, cli({ provider: "openai", model: "m", baseUrl: url }), ctx).config;
    expect(JSON.stringify(recordedConfig(config))).not.toMatch(/secret|alice/);
    expect(recordedConfig(config).client.critic.baseUrl).toBe("http://127.0.0.1:8080/v1/");
    expect(withheldCredentials(config)).toEqual(["planner.baseUrl", "critic.baseUrl"]);
    expect(withheldCredentials(resolveRun({}, cli({ provider: "openai", model: "m", baseUrl: "http://127.0.0.1:8080/v1" }), ctx).config)).toEqual([]);
    // the config hash does not move with the credentials, so a resume given them again matches
    expect(hashOf({ provider: "openai", model: "m", baseUrl: url })).toBe(
      hashOf({ provider: "openai", model: "m", baseUrl: "http://u:other@127.0.0.1:8080/v1/?api-key=rotated" }),
    );
    // a resume without them is told which to pass again
    const recorded = recordedConfig(config);
    expect(missingCredentials(recorded, withheldCredentials(config))).toEqual([
      "planner: --base-url (its userinfo and query)",
      "critic: --base-url (its userinfo and query)",
    ]);
    expect(missingCredentials(config, withheldCredentials(config))).toEqual([]);
  });
});

describe("--base-url", () => {
  it("takes http(s) only, and only when some role talks to an endpoint", () => {
    expect(() => cli({ baseUrl: "ftp://example.com/v1" })).toThrow(/expected an http:\/\/ or https:\/\/ URL/);
    expect(() => resolveRun({}, cli({ baseUrl: "http://127.0.0.1:1/v1" }), ctx)).toThrow(/--base-url: no role talks to an endpoint/);
    expect(resolveRun({}, cli({ criticProvider: "openai", criticModel: "m", baseUrl: "http://127.0.0.1:1/v1" }), ctx).config.client.critic.baseUrl).toBe(
      "http://127.0.0.1:1/v1",
    );
  });
});
