import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCorpus } from "../../harness/corpus/load.ts";
import { readTrialLog } from "../../harness/run/store.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import type { CallRecord, TrialRecord } from "../../src/formats/records.ts";
import { lacksWellFormedFinding, startSimServer, type SimServer } from "../providers/sim-server.ts";
import { cli, tempDir, testHost } from "./helpers.ts";

/**
 * Fault injection through the real code path: `fieldtest run --provider openai --base-url` against
 * a local server whose model is the sim and which answers 30% of requests with a fault (503, 429,
 * a cut body, prose, no findings array, wrong-shape findings, non-object findings, findings without
 * a message, a valid answer the server says it ended at its output limit, an error envelope sent
 * with 200). Whatever the endpoint does, no response without a well-formed finding is ever
 * accepted as a clean audit (docs/design.md §5).
 */

const FAULT_RATE = 0.3;

let sim: SimServer;
let root: string;
let records: TrialRecord[];

beforeAll(async () => {
  sim = await startSimServer({ faultRate: FAULT_RATE, seed: 12 });
  root = tempDir("ft-faults-");
  const out = join(root, "run");
  // Every boundary fixture and a third of the corpus goals, one trial each: `scripts/fault-sweep.ts` runs the whole sweep.
  const only = [
    ...loadCorpus("corpus")
      .goals.slice(0, 60)
      .map((g) => g.goal.id),
    "boundary/*",
  ].join(",");
  const flags = { only, trials: "1", provider: "openai", model: "sim-over-http", baseUrl: `${sim.server.url}/v1`, out };
  const host = testHost(["run"]);
  const code = await runSweep(cli(flags), {}, realEngine({}), host);
  expect([0, 3], host.stderr.text).toContain(code);
  records = readTrialLog(out, (r) => r).records;
});
afterAll(async () => {
  await sim.close();
  rmSync(root, { recursive: true, force: true });
});

describe("a 30% fault sweep over the wire", () => {
  it("served every kind of fault, wrong-shape findings included", () => {
    const critic = sim.served.critic;
    for (const fault of ["wrong_shape_findings", "non_object_findings", "empty_message_findings", "ended_early", "error_envelope", "unavailable_503"] as const)
      expect(critic[fault], fault).toBeGreaterThan(0);
    expect(sim.served.planner.ended_early).toBeGreaterThan(0);
    expect(records).toHaveLength(134);
  });

  it("records 0 clean audits from a response without a well-formed finding", () => {
    const calls: CallRecord[] = records.flatMap((r) => r.calls).filter((c) => c.role === "critic");
    const shapeless = calls.filter((c) => lacksWellFormedFinding(c.raw_text));
    expect(shapeless.length).toBeGreaterThan(0);
    expect(shapeless.filter((c) => c.outcome === "ok")).toEqual([]);
    const audits = records.flatMap((r) => r.rounds.map((round) => round.critic)).filter((a) => a !== null);
    expect(audits.filter((a) => a.outcome === "ok" && lacksWellFormedFinding(a.raw_text))).toEqual([]);
  });

  it("never reads an answer its server ended early as complete, though it parses: planner or critic", () => {
    const ended = records.flatMap((r) => r.calls).filter((c) => c.error_class === "incomplete");
    expect(new Set(ended.map((c) => c.role))).toEqual(new Set(["planner", "critic"]));
    for (const c of ended) {
      expect(c.outcome).toBe("invalid_output");
      expect(JSON.parse(c.raw_text!)).toBeTypeOf("object");
    }
  });

  it("never reads an error envelope as an answer: its attempts are server errors", () => {
    const attempts = records.flatMap((r) => r.calls).flatMap((c) => c.transport_attempts);
    const enveloped = attempts.filter((a) => a.http_status === 200 && a.outcome === "error");
    expect(enveloped.length).toBeGreaterThan(0);
    expect(new Set(enveloped.map((a) => a.error_class))).toEqual(new Set(["server_error"]));
  });

  it("a critic that kept answering badly is measured (escalated); a provider that never answered is an error", () => {
    for (const r of records) {
      const reasons = r.rounds.map((round) => round.critic?.reason).filter((x) => x !== null && x !== undefined);
      if (reasons.includes("provider_error")) expect(r.status, r.item_id).toBe("error");
      if (r.status !== "error" && reasons.includes("invalid_output")) expect(r.status).toBe("escalated");
    }
  });
});
