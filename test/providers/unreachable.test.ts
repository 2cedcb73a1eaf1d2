import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { CriticOutputSchema } from "../../src/formats/findings.ts";
import { createModelClient, type RoleConfig } from "../../src/providers/client.ts";
import { criticRequest, fakeClock } from "./helpers.ts";

/** A local port that refuses connections: bound by a server that is then closed. */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("a connection that was never opened", () => {
  for (const [provider, model, baseUrl] of [
    ["openai", "gpt-4o-mini", (port: number) => `http://127.0.0.1:${port}/v1`],
    ["anthropic", "claude-sonnet-4-5", (port: number) => `http://127.0.0.1:${port}`],
  ] as const) {
    it(`${provider}: is retried as 'unreachable', and costs 0, not an unknown cost: nothing was sent, so nothing was billed`, async () => {
      const role: RoleConfig = { provider, model, baseUrl: baseUrl(await refusedPort()), temperature: 0, maxTokens: 800 };
      const clock = fakeClock();
      const client = createModelClient(
        { planner: role, critic: role, maxRetries: 2 },
        { now: clock.now, sleep: clock.sleep, random: () => 0, env: { OPENAI_API_KEY: "sk-test", ANTHROPIC_API_KEY: "sk-ant-test" } },
      );
      const result = await client.structured(criticRequest(), CriticOutputSchema);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.outcome).toBe("provider_error");
      const [call] = result.calls;
      expect(call!.transport_attempts.map((a) => a.error_class)).toEqual(["unreachable", "unreachable", "unreachable"]);
      expect(call).toMatchObject({ error_class: "unreachable", cost_usd: 0 });
    });
  }
});
