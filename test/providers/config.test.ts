import { describe, expect, it } from "vitest";
import { checkApiKeys, MissingApiKeyError } from "../../src/providers/api-keys.ts";
import { ClientConfigSchema } from "../../src/providers/client.ts";
import { estimateCost, PRICE_TABLE_VERSION } from "../../src/providers/prices.ts";
import { modelMismatch } from "../../src/providers/context.ts";
import { parseRetryAfter } from "../../src/providers/adapter.ts";
import { retryDelayMs, RETRY_AFTER_CAP_MS, RETRY_CAP_MS } from "../../src/providers/retry.ts";
import fc from "fast-check";

const sim = { provider: "sim" as const, model: "sim-critic-1" };

describe("checkApiKeys", () => {
  it("names the missing variable in one line for a vendor's default endpoint", () => {
    const config = { planner: sim, critic: { provider: "openai" as const, model: "gpt-4o" } };
    expect(() => checkApiKeys(config, {})).toThrow(MissingApiKeyError);
    try {
      checkApiKeys(config, {});
    } catch (e) {
      expect((e as Error).message).toMatch(/^OPENAI_API_KEY is not set: the critic uses openai/);
      expect((e as Error).message).not.toContain("\n");
    }
    expect(() => checkApiKeys({ planner: { provider: "anthropic", model: "claude-sonnet-4-5" }, critic: sim }, { OPENAI_API_KEY: "k" })).toThrow(
      /ANTHROPIC_API_KEY/,
    );
  });

  it("accepts a set key, a custom base URL without key, the sim, and a replay that never goes live", () => {
    expect(() => checkApiKeys({ planner: sim, critic: { provider: "openai", model: "gpt-4o" } }, { OPENAI_API_KEY: "sk-x" })).not.toThrow();
    expect(() => checkApiKeys({ planner: sim, critic: { provider: "openai", model: "llama3", baseUrl: "http://127.0.0.1:11434/v1" } }, {})).not.toThrow();
    expect(() => checkApiKeys({ planner: sim, critic: { provider: "openai", model: "gpt-4o", baseUrl: "https://api.openai.com/v1/" } }, {})).toThrow(
      /OPENAI_API_KEY/,
    );
    const replay = { provider: "replay" as const, model: "gpt-4o", replay: { runDir: "r", as: "openai" as const } };
    expect(() => checkApiKeys({ planner: sim, critic: replay }, {})).not.toThrow();
    expect(() => checkApiKeys({ planner: sim, critic: { ...replay, replay: { ...replay.replay, fallThrough: true } } }, {})).toThrow(/OPENAI_API_KEY/);
  });
});

describe("config schema", () => {
  it("fills defaults and rejects unknown keys", () => {
    const parsed = ClientConfigSchema.parse({ planner: sim, critic: sim });
    expect(parsed.maxOutputAttempts).toBe(3);
    expect(parsed.maxRetries).toBe(4);
    expect(() => ClientConfigSchema.parse({ planner: sim, critic: { ...sim, apiKey: "sk" } })).toThrow(/apiKey/);
  });
});

describe("price table", () => {
  it("prices known models and snapshots, and gives null (never 0) for unknown ones", () => {
    expect(PRICE_TABLE_VERSION).toMatch(/\S/);
    expect(estimateCost("gpt-4o", 1_000_000, 1_000_000)).toBeCloseTo(12.5, 10);
    expect(estimateCost("gpt-4o-2024-08-06", 1_000_000, 0)).toBeCloseTo(2.5, 10);
    expect(estimateCost("sim-critic-1", 5000, 5000)).toBe(0);
    expect(estimateCost("my-local-llama", 10, 10)).toBeNull();
  });
});

describe("model mismatch", () => {
  it("classifies reported models", () => {
    expect(modelMismatch("gpt-4o", "gpt-4o")).toBeNull();
    expect(modelMismatch("gpt-4o", null)).toBeNull();
    expect(modelMismatch("gpt-4o", "gpt-4o-2024-08-06")).toBe("snapshot");
    expect(modelMismatch("gpt-4o", "gpt-4o-mini")).toBe("snapshot");
    expect(modelMismatch("gpt-4o", "gpt-4")).toBe("different");
    expect(modelMismatch("gpt-4o", "llama3")).toBe("different");
  });
});

describe("retry policy", () => {
  it("honours Retry-After up to its cap; past it the attempt fails rather than retrying before the server said", () => {
    expect(retryDelayMs(0, 7000, 0.9)).toBe(7000);
    expect(retryDelayMs(3, RETRY_AFTER_CAP_MS, 0)).toBe(RETRY_AFTER_CAP_MS);
    expect(retryDelayMs(3, RETRY_AFTER_CAP_MS * 10, 0)).toBeNull();
  });

  it("backs off exponentially with jitter inside [ceiling/2, ceiling], never above the cap", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (retry, r) => {
        const ceiling = Math.min(RETRY_CAP_MS, 500 * 2 ** retry);
        const d = retryDelayMs(retry, null, r)!;
        expect(d).toBeGreaterThanOrEqual(ceiling / 2);
        expect(d).toBeLessThanOrEqual(ceiling);
        expect(retryDelayMs(retry + 1, null, r)).toBeGreaterThanOrEqual(d);
      }),
    );
  });

  it("reads Retry-After in seconds, milliseconds or as an HTTP date", () => {
    const h = (o: Record<string, string>) => new Headers(o);
    expect(parseRetryAfter(h({ "retry-after": "2" }), 0)).toBe(2000);
    expect(parseRetryAfter(h({ "retry-after-ms": "150", "retry-after": "9" }), 0)).toBe(150);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter(h({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now)).toBe(5000);
    expect(parseRetryAfter(h({}), 0)).toBeNull();
    expect(parseRetryAfter(h({ "retry-after": "soon" }), 0)).toBeNull();
  });
});
