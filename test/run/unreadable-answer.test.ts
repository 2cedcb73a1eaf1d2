import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCorpus } from "../../harness/corpus/load.ts";
import { readTrialLog } from "../../harness/run/store.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import { chatCompletion, useFakeServers } from "../providers/fake-server.ts";
import { roleOf } from "../engine/scripted-server.ts";
import { cli, tempDir, testHost } from "./helpers.ts";

/**
 * A 200 whose body no adapter can read (JSON `null`: the SDK hands it over and reading `choices`
 * throws) is a failed send like any other: the trial is an `error` that keeps every call it made,
 * its cost is unknown (the send may have been billed), and a run of such trials exits 3.
 */

const startServer = useFakeServers();
const only = loadCorpus("corpus")
  .goals.slice(0, 2)
  .map((g) => g.goal.id)
  .join(",");

/** A gate-clean plan for any goal: the planner's send is priced (gpt-4o-mini, usage reported). */
const HEALTHY_PLAN = {
  tasks: [
    { id: "inspect", kind: "read", description: "Inspect the current state" },
    { id: "announce", kind: "notify", description: "Announce the change" },
  ],
  dependencies: [],
};

describe("a 200 answer no adapter can read", () => {
  it("the trial is an error with its calls kept and unknown cost, and the run exits 3", async () => {
    const server = await startServer((request) =>
      roleOf(request) === "planner" ? { status: 200, body: chatCompletion(JSON.stringify(HEALTHY_PLAN)) } : { status: 200, body: null },
    );
    const out = join(tempDir("ft-unreadable-"), "run");
    const host = testHost(["run"]);
    const flags = { only, trials: "1", provider: "openai", model: "gpt-4o-mini", baseUrl: `${server.url}/v1`, out };
    expect(await runSweep(cli(flags), {}, realEngine({}), host)).toBe(3);

    const records = readTrialLog(out, (r) => r).records;
    expect(records).toHaveLength(2);
    for (const r of records) {
      expect(r.status, r.item_id).toBe("error");
      expect(r.cost_usd).toBeNull();
      expect(r.error).toContain(`${server.url}/v1`);
      const planner = r.calls.filter((c) => c.role === "planner");
      expect(planner.length).toBeGreaterThan(0);
      expect(planner.every((c) => c.outcome === "ok" && c.cost_usd !== null && c.cost_usd > 0)).toBe(true);
      const critic = r.calls.filter((c) => c.role === "critic");
      expect(critic).toHaveLength(1);
      expect(critic[0]).toMatchObject({ outcome: "error", error_class: "unexpected", http_status: null, cost_usd: null });
      expect(critic[0]!.transport_attempts).toHaveLength(1);
      expect(r.rounds.at(-1)?.critic?.reason).toBe("provider_error");
    }
    expect(host.stderr.text).toContain("2 of 2 trials are errors");
  });
});
