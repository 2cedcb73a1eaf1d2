import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CriticOutputSchema } from "../../src/formats/findings.ts";
import { createDirectoryCache } from "../../src/providers/cache.ts";
import { createModelClient, type RoleConfig } from "../../src/providers/client.ts";
import { estimateCost } from "../../src/providers/prices.ts";
import { templatePlan } from "../../src/sim/planner.ts";
import { loadSimProfile, PROFILES_DIR, type SimProfile } from "../../src/sim/profile.ts";
import { criticExtra, GOAL, simRequest } from "./sim-fixtures.ts";
import { chatCompletion, useFakeServers } from "./fake-server.ts";
import { criticRequest, fakeClock, VALID_CRITIC_ANSWER } from "./helpers.ts";

const startServer = useFakeServers();

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "fieldtest-cache-"));
  dirs.push(d);
  return d;
}

const entries = (dir: string) => readdirSync(dir, { recursive: true }).filter((p) => String(p).endsWith(".json")).length;
const plan = templatePlan(GOAL, new Set(), 1, null);

function client(dir: string, model = "sim-critic-1", sim?: { runSeed?: number; profile?: SimProfile }) {
  const critic: RoleConfig = { provider: "sim", model };
  return createModelClient({ planner: { provider: "sim", model: "sim-planner-1" }, critic, cache: { dir }, ...(sim ? { sim } : {}) }, fakeClock());
}

describe("reply cache", () => {
  it("keeps trial 0 and trial 1 of the same request as distinct entries", async () => {
    const dir = tempDir();
    const c = client(dir);
    const t0 = await c.structured(simRequest("critic", criticExtra(plan), { trial: 0 }), CriticOutputSchema);
    const t1 = await c.structured(simRequest("critic", criticExtra(plan), { trial: 1 }), CriticOutputSchema);
    expect(t0.calls[0]!.request_sha256).not.toBe(t1.calls[0]!.request_sha256);
    expect(entries(dir)).toBe(2);
    expect([t0.calls[0]!.cached, t1.calls[0]!.cached]).toEqual([false, false]);
  });

  it("never lets two models share an entry", async () => {
    const dir = tempDir();
    const a = await client(dir, "sim-critic-1").structured(simRequest("critic", criticExtra(plan)), CriticOutputSchema);
    const b = await client(dir, "sim-critic-2").structured(simRequest("critic", criticExtra(plan)), CriticOutputSchema);
    expect(a.calls[0]!.request_sha256).not.toBe(b.calls[0]!.request_sha256);
    expect(b.calls[0]!.cached).toBe(false);
    expect(entries(dir)).toBe(2);
  });

  it("never lets two sim seeds or profiles share an entry: the request is the same, the answer is not", async () => {
    const dir = tempDir();
    const noisy = loadSimProfile(`${PROFILES_DIR}noisy.yaml`);
    const ask = (sim: { runSeed?: number; profile?: SimProfile }) =>
      client(dir, "sim-critic-1", sim).structured(simRequest("critic", criticExtra(plan)), CriticOutputSchema);
    const calls = [await ask({ runSeed: 0 }), await ask({ runSeed: 1 }), await ask({ runSeed: 0, profile: noisy }), await ask({ runSeed: 0 })].map(
      (r) => r.calls[0]!,
    );
    // The recorded request hash is the request's own: the same for all four.
    expect(new Set(calls.map((c) => c.request_sha256)).size).toBe(1);
    expect(calls.map((c) => c.cached)).toEqual([false, false, false, true]);
    expect(entries(dir)).toBe(3);
    // Each seed answers as a client without the cache does.
    for (const runSeed of [0, 1]) {
      const fresh = await createModelClient(
        { planner: { provider: "sim", model: "sim-planner-1" }, critic: { provider: "sim", model: "sim-critic-1" }, sim: { runSeed, profile: noisy } },
        fakeClock(),
      ).structured(simRequest("critic", criticExtra(plan)), CriticOutputSchema);
      const cachedRun = await ask({ runSeed, profile: noisy });
      expect(cachedRun.rawText, `seed ${runSeed}`).toBe(fresh.rawText);
    }
  });

  it("answers a repeated request (same trial, same model) from the store", async () => {
    const dir = tempDir();
    const first = await client(dir).structured(simRequest("critic", criticExtra(plan)), CriticOutputSchema);
    const again = await client(dir).structured(simRequest("critic", criticExtra(plan)), CriticOutputSchema);
    expect(again.calls[0]!.cached).toBe(true);
    expect(again.calls[0]!.transport_attempts).toEqual([]);
    expect(again.rawText).toBe(first.rawText);
    expect(again.calls[0]!.request_sha256).toBe(first.calls[0]!.request_sha256);
  });

  it("is off unless configured", async () => {
    const c = createModelClient({ planner: { provider: "sim", model: "sim-planner-1" }, critic: { provider: "sim", model: "sim-critic-1" } }, fakeClock());
    const a = await c.structured(simRequest("critic", criticExtra(plan)), CriticOutputSchema);
    const b = await c.structured(simRequest("critic", criticExtra(plan)), CriticOutputSchema);
    expect([a.calls[0]!.cached, b.calls[0]!.cached]).toEqual([false, false]);
  });

  it("keeps whether an answer ended early, and reads an entry kept before that was recorded as one that finished", () => {
    const dir = tempDir();
    const store = createDirectoryCache(dir);
    const key = "ab".padEnd(64, "0");
    const reply = { text: '{"findings": []}', usage: null, reportedModel: "m", fingerprint: null, httpStatus: 200 };
    store.put(key, { ...reply, incomplete: "the answer ended before it was complete (finish_reason length: the output limit)" });
    expect(store.get(key)?.incomplete).toBe("the answer ended before it was complete (finish_reason length: the output limit)");
    const older = "cd".padEnd(64, "0");
    mkdirSync(join(dir, "cd"), { recursive: true });
    writeFileSync(join(dir, "cd", `${older}.json`), JSON.stringify(reply));
    expect(store.get(older)).toEqual({ ...reply, incomplete: null });
  });

  it("refuses keys that are not SHA-256 digests, so no path leaves the directory", () => {
    const store = createDirectoryCache(tempDir());
    expect(() => store.get("../../etc/passwd")).toThrow(/SHA-256/);
    expect(store.get("a".repeat(64))).toBeUndefined();
  });

  it("prices a cached answer from its recorded usage (unknown without usage), and the sim's at 0", async () => {
    const { usage: _, ...noUsage } = chatCompletion(JSON.stringify(VALID_CRITIC_ANSWER));
    const server = await startServer([
      { status: 200, body: chatCompletion(JSON.stringify(VALID_CRITIC_ANSWER)) },
      { status: 200, body: noUsage },
    ]);
    const dir = tempDir();
    const live = () => {
      const critic: RoleConfig = { provider: "openai", model: "gpt-4o-mini", baseUrl: `${server.url}/v1` };
      return createModelClient({ planner: critic, critic, cache: { dir } }, { ...fakeClock(), env: {} });
    };
    const cost = async (trial: number) => (await live().structured(criticRequest({ trial }), CriticOutputSchema)).calls.map((c) => [c.cached, c.cost_usd]);
    const priced = estimateCost("gpt-4o-mini", 100, 20);
    expect(priced).toBeGreaterThan(0);
    expect([await cost(0), await cost(0)]).toEqual([[[false, priced]], [[true, priced]]]);
    expect([await cost(1), await cost(1)]).toEqual([[[false, null]], [[true, null]]]);
    expect(server.received).toHaveLength(2);
    const sim = tempDir();
    const first = await client(sim).structured(simRequest("critic", criticExtra(plan)), CriticOutputSchema);
    const again = await client(sim).structured(simRequest("critic", criticExtra(plan)), CriticOutputSchema);
    expect([first.calls[0]!.cost_usd, again.calls[0]!.cached, again.calls[0]!.cost_usd]).toEqual([0, true, 0]);
  });
});
