import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CriticOutputSchema } from "../../src/formats/findings.ts";
import { createDirectoryCache } from "../../src/providers/cache.ts";
import { createModelClient, type RoleConfig } from "../../src/providers/client.ts";
import { templatePlan } from "../../src/providers/sim/planner.ts";
import { criticHints, GOAL, simRequest } from "./sim-fixtures.ts";
import { fakeClock } from "./helpers.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "fieldtest-cache-"));
  dirs.push(d);
  return d;
}

const entries = (dir: string) => readdirSync(dir, { recursive: true }).filter((p) => String(p).endsWith(".json")).length;
const plan = templatePlan(GOAL, new Set(), 1, null);

function client(dir: string, model = "sim-critic-1") {
  const critic: RoleConfig = { provider: "sim", model };
  return createModelClient({ planner: { provider: "sim", model: "sim-planner-1" }, critic, cache: { dir } }, fakeClock());
}

describe("reply cache", () => {
  it("keeps trial 0 and trial 1 of the same request as distinct entries", async () => {
    const dir = tempDir();
    const c = client(dir);
    const t0 = await c.structured(simRequest("critic", criticHints(plan), { trial: 0 }), CriticOutputSchema);
    const t1 = await c.structured(simRequest("critic", criticHints(plan), { trial: 1 }), CriticOutputSchema);
    expect(t0.calls[0]!.request_sha256).not.toBe(t1.calls[0]!.request_sha256);
    expect(entries(dir)).toBe(2);
    expect([t0.calls[0]!.cached, t1.calls[0]!.cached]).toEqual([false, false]);
  });

  it("never lets two models share an entry", async () => {
    const dir = tempDir();
    const a = await client(dir, "sim-critic-1").structured(simRequest("critic", criticHints(plan)), CriticOutputSchema);
    const b = await client(dir, "sim-critic-2").structured(simRequest("critic", criticHints(plan)), CriticOutputSchema);
    expect(a.calls[0]!.request_sha256).not.toBe(b.calls[0]!.request_sha256);
    expect(b.calls[0]!.cached).toBe(false);
    expect(entries(dir)).toBe(2);
  });

  it("answers a repeated request (same trial, same model) from the store", async () => {
    const dir = tempDir();
    const first = await client(dir).structured(simRequest("critic", criticHints(plan)), CriticOutputSchema);
    const again = await client(dir).structured(simRequest("critic", criticHints(plan)), CriticOutputSchema);
    expect(again.calls[0]!.cached).toBe(true);
    expect(again.calls[0]!.transport_attempts).toEqual([]);
    expect(again.rawText).toBe(first.rawText);
    expect(again.calls[0]!.request_sha256).toBe(first.calls[0]!.request_sha256);
  });

  it("is off unless configured", async () => {
    const c = createModelClient({ planner: { provider: "sim", model: "sim-planner-1" }, critic: { provider: "sim", model: "sim-critic-1" } }, fakeClock());
    const a = await c.structured(simRequest("critic", criticHints(plan)), CriticOutputSchema);
    const b = await c.structured(simRequest("critic", criticHints(plan)), CriticOutputSchema);
    expect([a.calls[0]!.cached, b.calls[0]!.cached]).toEqual([false, false]);
  });

  it("refuses keys that are not SHA-256 digests, so no path leaves the directory", () => {
    const store = createDirectoryCache(tempDir());
    expect(() => store.get("../../etc/passwd")).toThrow(/SHA-256/);
    expect(store.get("a".repeat(64))).toBeUndefined();
  });
});
