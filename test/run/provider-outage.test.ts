import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadCorpus } from "../../harness/corpus/load.ts";
import { readSpend } from "../../harness/run/journal.ts";
import { readManifest } from "../../harness/run/manifest.ts";
import { mostlyErrors } from "../../harness/run/outage.ts";
import { readTrialLog, RUN_FILES } from "../../harness/run/store.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import { loadFile } from "../../src/formats/load.ts";
import { chatCompletion, errorBody, useFakeServers, type Step } from "../providers/fake-server.ts";
import { roleOf } from "../engine/scripted-server.ts";
import { cli, tempDir, testHost } from "./helpers.ts";

/**
 * docs/design.md §6 "model failure versus infrastructure failure" at the level of a sweep: a provider
 * that never answers makes trials `error` (not escalations), the run exits 3 with one line naming
 * the endpoint, and `--resume --retry-errors` re-runs those trials.
 */

const startServer = useFakeServers();
const corpus = loadCorpus("corpus");
const only = [...corpus.goals.slice(0, 2).map((g) => g.goal.id), corpus.fixtures[0]!.fixture.id].join(",");

/** A gate-clean plan for any goal, and a clean audit: what a healthy endpoint answers. */
const HEALTHY_PLAN = {
  tasks: [
    { id: "inspect", kind: "read", description: "Inspect the current state" },
    { id: "announce", kind: "notify", description: "Announce the change" },
  ],
  dependencies: [],
};
const healthy = (role: "planner" | "critic"): Step => ({
  status: 200,
  body: chatCompletion(JSON.stringify(role === "planner" ? HEALTHY_PLAN : { findings: [] })),
});
const down: Step = { status: 503, body: errorBody("no healthy upstream"), headers: { "retry-after-ms": "0" } };

const MetricsSchema = z.looseObject({ metrics: z.record(z.string(), z.looseObject({ value: z.number().nullable(), n_trials: z.number() })) });

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe("a provider that never answers", () => {
  it("makes every trial `error`, exits 3 naming the endpoint, and --retry-errors re-runs them once it is back", async () => {
    let up = false;
    const server = await startServer((request) => (up ? healthy(roleOf(request)) : down));
    const out = join(tempDir("ft-outage-"), "run");
    const flags = { only, trials: "2", provider: "openai", model: "m", baseUrl: `${server.url}/v1` };
    const host = testHost(["run"]);
    expect(await runSweep(cli({ ...flags, out }), {}, realEngine({}), host)).toBe(3);

    const records = readTrialLog(out, (r) => r).records;
    expect(records).toHaveLength(6);
    expect(records.every((r) => r.status === "error" && r.verdict === "escalate")).toBe(true);
    expect(records.every((r) => r.error?.includes(`${server.url}/v1`))).toBe(true);
    expect(readManifest(out).totals).toMatchObject({ recorded: 6, errors: 6 });
    const outage = host.stderr.text.split("\n").filter((l) => l.includes("trials are errors"));
    expect(outage).toHaveLength(1);
    expect(outage[0]).toContain(`6 of 6 trials are errors`);
    expect(outage[0]).toContain(`${server.url}/v1`);
    expect(outage[0]).toContain(`--resume ${out} --retry-errors`);
    // Nothing about the model was measured: the outage is the error rate, not an unavailable critic or planner.
    const { metrics } = loadFile(join(out, RUN_FILES.summary), MetricsSchema);
    expect(metrics.trial_error_rate!.value).toBe(1);
    for (const m of ["critic_unavailable_rate", "critic_unavailable_rate.corpus", "planner_unavailable_rate", "engine_flip_rate", "label_flip_rate"]) {
      expect(metrics[m]!.n_trials, m).toBe(0);
    }

    up = true;
    const again = testHost(["run", "--resume", out, "--retry-errors"]);
    expect(await runSweep(cli({ resume: out, retryErrors: true }), {}, realEngine({}), again)).toBe(0);
    expect(again.stderr.text).toContain("6 of 6 trials to run");
    expect(readTrialLog(out, (r) => r).records.map((r) => r.status)).not.toContain("error");
  });

  it("names a dead endpoint without its userinfo or query", async () => {
    const port = await freePort();
    const out = join(tempDir("ft-outage-"), "run");
    const flags = { only, trials: "1", provider: "openai", model: "m", baseUrl: `http://ops:hunter22@127.0.0.1:${port}/v1?token=abc123`, out };
    const host = testHost(["run"]);
    expect(await runSweep(cli(flags), { maxRetries: 0 }, realEngine({}), host)).toBe(3);
    const outage = host.stderr.text.split("\n").filter((l) => l.includes("trials are errors"));
    expect(outage).toEqual([expect.stringContaining(`http://127.0.0.1:${port}/v1`)]);
    expect(host.stderr.text).not.toMatch(/hunter22|abc123|ops:/);
  });
});

describe("a provider that recovers within the retries", () => {
  it("keeps every trial's verdict, records each call's failed attempt, and journals and bills every attempt the server saw", async () => {
    // Every call's first request is refused with a 503 and its retry answered: one trial at a
    // time, so each request body's first, third ... sighting is a call's first attempt.
    const seen = new Map<string, number>();
    const server = await startServer((request) => {
      const n = seen.get(request.raw) ?? 0;
      seen.set(request.raw, n + 1);
      return n % 2 === 0 ? down : healthy(roleOf(request));
    });
    const out = join(tempDir("ft-recovers-"), "run");
    const host = testHost(["run"]);
    const flags = { only, trials: "2", concurrency: "1", provider: "openai", model: "gpt-4o-mini", baseUrl: `${server.url}/v1`, out };
    expect(await runSweep(cli(flags), {}, realEngine({}), host), host.stderr.text).toBe(0);

    const records = readTrialLog(out, (r) => r).records;
    expect(records).toHaveLength(6);
    expect(records.map((r) => r.status)).not.toContain("error");
    const calls = records.flatMap((r) => r.calls);
    expect(calls.length).toBeGreaterThanOrEqual(records.length);
    for (const call of calls) {
      expect(call.outcome).toBe("ok");
      expect(call.transport_attempts.map((a) => a.http_status)).toEqual([503, 200]);
    }
    // The journal has a sent and a returned line for every request the server received, each under its trial.
    const sent = new Map<string, number>();
    let returned = 0;
    readSpend(out, (line) => {
      if (line.event === "sent") sent.set(line.trial_key!, (sent.get(line.trial_key!) ?? 0) + 1);
      else returned++;
    });
    expect([...sent.values()].reduce((a, b) => a + b, 0)).toBe(server.received.length);
    expect(returned).toBe(server.received.length);
    for (const r of records) expect(sent.get(`${r.suite}/${r.item_id}/${r.trial}`)).toBe(r.calls.reduce((n, c) => n + c.transport_attempts.length, 0));
    // A refused attempt is billed nothing, and known to be: the total is exact, not a lower bound.
    expect(readManifest(out).spend).toMatchObject({ calls: server.received.length, unknown_cost_calls: 0, cost_usd_is_lower_bound: false });
    expect(readManifest(out).spend!.cost_usd).toBeGreaterThan(0);
  });
});

describe("mostlyErrors: the exit-3 rule", () => {
  const trial = (status: "approved" | "escalated" | "error", error: string | null = null) => ({ status, error });
  it("fires only when more than half of the trials are errors, naming the first error", () => {
    expect(mostlyErrors([trial("error", "a"), trial("error", "b"), trial("approved"), trial("escalated")])).toBeNull();
    expect(mostlyErrors([])).toBeNull();
    const line = mostlyErrors([trial("approved"), trial("error", "critic call to http://h/v1 failed"), trial("error", "x")]);
    expect(line).toContain("2 of 3 trials are errors");
    expect(line).toContain("critic call to http://h/v1 failed");
    expect(line).not.toContain("\n");
  });
});
