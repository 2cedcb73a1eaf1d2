import { describe, expect, it } from "vitest";
import { rehearse } from "../../src/providers/send-thread/rehearsal.ts";

describe("the HTTP thread's rehearsal", () => {
  // A canned answer the adapter could not read would leave the send path half rehearsed, silently.
  it.each(["openai", "anthropic"] as const)("%s: every send's answer is read by the real adapter and SDK", async (provider) => {
    expect(await rehearse(provider, { sends: 6, parallel: 2 })).toBe(6);
  });

  it("gives way once real work has come", async () => {
    let checks = 0;
    // Real work comes after the first three sends have started.
    expect(await rehearse("openai", { sends: 16, parallel: 1, done: () => ++checks > 3 })).toBe(3);
  });
});
