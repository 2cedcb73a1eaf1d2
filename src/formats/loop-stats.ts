import { z } from "zod";
import type { LoopDelay, LoopStats } from "../event-loop.ts";

/**
 * What a sweep saw of an event loop while its trials ran (src/event-loop.ts): how late timers
 * fired (ms), and how busy the loop was (time spent running code, GC pauses included, and its
 * share of the window). `busy_ms` is wall time the loop spent running (on a loaded machine it
 * includes waiting for a core).
 */
export const LoopDelaySchema = z.strictObject({
  delay_p50_ms: z.number(),
  delay_p99_ms: z.number(),
  delay_max_ms: z.number(),
  busy_ms: z.number(),
  utilization: z.number(),
}) satisfies z.ZodType<LoopDelay>;

/**
 * The main thread's: every answer waits for it before the engine handles it, so the harness's own
 * work shows here before it slows the sweep. `cpu_ms` is the process's CPU time (user + system,
 * all threads) over the same window: over the calls, the harness's cost per call.
 */
export const LoopStatsSchema = LoopDelaySchema.extend({ cpu_ms: z.number() }) satisfies z.ZodType<LoopStats>;
