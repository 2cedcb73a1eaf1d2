import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigFileSchema } from "../../harness/config.ts";
import { redactArgv } from "../../harness/run/redact.ts";
import { configHash, diffValues, RecordedConfigSchema, recordedConfig, resolveRun, RunCliSchema, type RunCli } from "../../harness/run/settings.ts";
import { DEFAULT_SIM_PROFILE } from "../../src/providers/sim/profile.ts";

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
    for (const change of [{ trials: "3" }, { seed: "1" }, { mode: "every-round" }, { only: "db-*" }, { temperature: "0.5" }, { criticModel: "sim-critic-2" }, { suite: "corpus" }, { domain: "dns" }, { category: "strict" }]) {
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
    expect(configHash(resolveRun({}, cli({ header: ["X-Tenant=blue"] }), ctx).config, {})).not.toBe(configHash(resolveRun({}, cli({ header: ["X-Tenant=red"] }), ctx).config, {}));
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
    const argv = ["run", "--header", "Authorization=Bearer sk-secret-value-123", "--header=X-Api-Key=abc123456789", "--header", "X-Tenant=blue", "--model", "m"];
    const out = redactArgv(argv).join(" ");
    expect(out).not.toContain("sk-secret-value-123");
    expect(out).not.toContain("abc123456789");
    expect(out).toContain("X-Tenant=blue");
  });
});
