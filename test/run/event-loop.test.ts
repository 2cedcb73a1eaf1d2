import { describe, expect, it } from "vitest";
import { monitorEventLoop } from "../../harness/run/event-loop.ts";

describe("event-loop monitor", () => {
  it("sees a loop that was blocked, and reports nothing before its first sample", async () => {
    const monitor = monitorEventLoop(1);
    expect(monitor.read()).toBeNull();
    await new Promise((r) => setTimeout(r, 20));
    const block = Date.now() + 60;
    while (Date.now() < block); // the loop cannot run a timer for 60 ms
    await new Promise((r) => setTimeout(r, 20));
    const seen = monitor.stop()!;
    expect(seen.delay_max_ms).toBeGreaterThanOrEqual(50);
    expect(seen.delay_p50_ms).toBeLessThanOrEqual(seen.delay_p99_ms);
    expect(seen.delay_p99_ms).toBeLessThanOrEqual(seen.delay_max_ms);
    // the 60 ms of blocking were the loop's own work
    expect(seen.busy_ms).toBeGreaterThanOrEqual(50);
    expect(seen.cpu_ms).toBeGreaterThanOrEqual(1);
    expect(seen.utilization).toBeGreaterThan(0);
  });
});
