import { z } from "zod";

/**
 * What the sweep saw of its own event loop while its trials ran: how late timers fired (ms), and
 * how busy the loop was (time spent running code, GC pauses included, and its share of the
 * window). Every provider answer waits for a busy loop before the harness handles it, so the
 * harness's own work shows here before it slows the sweep. `busy_ms` is wall time the loop spent
 * running (on a loaded machine it includes waiting for a core); `cpu_ms` is the process's CPU
 * time (user + system, all threads) over the same window: over the calls, the harness's cost per call.
 */
export const LoopStatsSchema = z.strictObject({
  delay_p50_ms: z.number(),
  delay_p99_ms: z.number(),
  delay_max_ms: z.number(),
  busy_ms: z.number(),
  utilization: z.number(),
  cpu_ms: z.number(),
});
export type LoopStats = z.output<typeof LoopStatsSchema>;
