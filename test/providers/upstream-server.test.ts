import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCorpus } from "../../harness/corpus/load.ts";
import { plannerRequest } from "../../src/planner/planner.ts";
import { RoleConfigSchema } from "../../src/providers/config.ts";
import { createLiveAdapter } from "../../src/providers/adapters.ts";
import type { ModelClient } from "../../src/providers/types.ts";
import { startUpstreamServer, upstreamDelayMs, type UpstreamServer } from "./upstream-server.ts";

// The benchmark's stand-in for an upstream model (scripts/bench-sweep.ts live): what it answers
// must be what the harness expects of a model, or the benchmark measures failed calls.
let server: UpstreamServer;
beforeAll(async () => {
  server = await startUpstreamServer({ plannerMs: 1, criticMs: 1, spread: 0 });
});
afterAll(() => server.close());

const goal = loadCorpus("corpus").goals[0]!.goal;

/** A decompose request for the first corpus goal, rendered as the OpenAI adapter sends it. */
async function plannerBody(): Promise<string> {
  const adapter = await createLiveAdapter("openai", RoleConfigSchema.parse({ provider: "openai", model: "gpt-4o-mini", baseUrl: server.url }), {
    apiKey: "sk-test",
    now: Date.now,
  });
  const unused: ModelClient = { structured: () => Promise.reject(new Error("not sent through a client")) };
  const request = plannerRequest(goal, "decompose", { client: unused, itemId: goal.id, trial: 0, round: 0 });
  return JSON.stringify(
    adapter.render({ system: request.system, user: request.user, schemaName: request.schemaName, schema: request.schema, corrections: [] }, "json_schema"),
  );
}

const post = (body: string) => fetch(`${server.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body });

describe("the upstream-shaped benchmark server", () => {
  it("answers a planner request with a plan for the goal the prompt carries, the same one every time, and says what delay it spent", async () => {
    const body = await plannerBody();
    const answers = await Promise.all(
      [post(body), post(body)].map(
        async (r) => (await r).json() as Promise<{ system_fingerprint: string; choices: { message: { content: string } }[]; usage: { prompt_tokens: number } }>,
      ),
    );
    const plan = JSON.parse(answers[0]!.choices[0]!.message.content) as { goal_id: string; tasks: unknown[] };
    expect(plan.goal_id).toBe(goal.id);
    expect(plan.tasks.length).toBeGreaterThan(0);
    expect(answers[1]!.choices[0]!.message.content).toBe(answers[0]!.choices[0]!.message.content);
    expect(upstreamDelayMs(answers[0]!.system_fingerprint)).toBe(1);
    expect(answers[0]!.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it("refuses a request it cannot read with a 400 and goes on serving", async () => {
    const before = server.served();
    for (const bad of ["", "{not json", JSON.stringify({ model: "m", messages: [{ role: "user", content: "no goal here" }] })]) {
      const r = await post(bad);
      expect(r.status, bad).toBe(400);
      expect(((await r.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    }
    expect((await post(await plannerBody())).status).toBe(200);
    expect(server.served()).toBe(before + 1);
  });
});
