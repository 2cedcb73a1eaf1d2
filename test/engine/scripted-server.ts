import { CRITIC_PROMPT, PLANNER_PROMPT } from "../../src/critic/prompts/index.ts";
import type { Role } from "../../src/formats/records.ts";
import { createModelClient } from "../../src/providers/client.ts";
import type { ModelClient } from "../../src/providers/types.ts";
import { chatCompletion, errorBody, useFakeServers, type FakeServer, type Received, type Step } from "../providers/fake-server.ts";
import { fakeClock } from "../providers/helpers.ts";

/**
 * The engine over the wire: a local OpenAI-compatible server answers each role from its own
 * script, and the real client (openai adapter, transport retries, structured-output feedback)
 * talks to it on a fake clock. The role of a request is read from its system prompt, as a model
 * server would see it.
 */

/** A model answer carrying `value` as its text (objects as JSON). */
export const says = (value: unknown): Step => ({ status: 200, body: chatCompletion(typeof value === "string" ? value : JSON.stringify(value)) });
export const unavailable503: Step = { status: 503, body: errorBody("overloaded"), headers: { "retry-after-ms": "0" } };

export type RoleScript = Step[] | ((request: Received, index: number) => Step);

export function roleOf(request: Received): Role {
  const messages = (request.body.messages ?? []) as { role: string; content: unknown }[];
  const system = messages.find((m) => m.role === "system")?.content;
  if (system === PLANNER_PROMPT.system) return "planner";
  if (system === CRITIC_PROMPT.system) return "critic";
  throw new Error("the request carries neither role's system prompt");
}

interface ScriptedEndpoint {
  server: FakeServer;
  client: ModelClient;
  /** Requests the server received for one role, in order. */
  received(role: Role): Received[];
}

/** Start servers inside tests (each closed after its test) and connect a real client to them. */
export function useScriptedEndpoint(): (
  script: Partial<Record<Role, RoleScript>>,
  limits?: { maxRetries?: number; maxOutputAttempts?: number },
) => Promise<ScriptedEndpoint> {
  const start = useFakeServers();
  return async (script, limits = {}) => {
    const served: Record<Role, number> = { planner: 0, critic: 0 };
    const server = await start((request) => {
      const role = roleOf(request);
      const steps = script[role];
      if (!steps) throw new Error(`no ${role} script`);
      const index = served[role]++;
      return typeof steps === "function" ? steps(request, index) : steps[Math.min(index, steps.length - 1)]!;
    });
    const clock = fakeClock();
    const role = (model: string) => ({ provider: "openai" as const, model, baseUrl: `${server.url}/v1` });
    const client = createModelClient(
      { planner: role("planner-model"), critic: role("critic-model"), ...limits },
      { now: clock.now, sleep: clock.sleep, random: () => 0, env: {} },
    );
    return { server, client, received: (r) => server.received.filter((q) => roleOf(q) === r) };
  };
}
