import { describe, expect, it } from "vitest";
import { monitorEventLoop, monitorLoopDelay } from "../src/event-loop.ts";

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

  it("watches a loop's delay and busy time alone where the process's CPU is not the thread's", async () => {
    const monitor = monitorLoopDelay(1);
    await new Promise((r) => setTimeout(r, 20));
    const block = Date.now() + 30;
    while (Date.now() < block);
    await new Promise((r) => setTimeout(r, 20));
    const seen = monitor.stop()!;
    expect(Object.keys(seen).sort()).toEqual(["busy_ms", "delay_max_ms", "delay_p50_ms", "delay_p99_ms", "utilization"]);
    expect(seen.delay_max_ms).toBeGreaterThanOrEqual(20);
  });
});
