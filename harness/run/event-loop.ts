import { monitorEventLoopDelay } from "node:perf_hooks";
import { z } from "zod";

/**
 * How late the sweep's event loop ran its timers, in ms. Every provider answer waits that long
 * before the harness handles it, so a loop kept busy by the harness's own work would inflate the
 * latencies it records and slow the sweep; the manifest and the progress line report it.
 */
export const LoopDelaySchema = z.strictObject({ p50_ms: z.number(), p99_ms: z.number(), max_ms: z.number() });
export type LoopDelay = z.output<typeof LoopDelaySchema>;

export interface LoopMonitor {
  /** The delays seen so far; null before the first sample. */
  read(): LoopDelay | null;
  stop(): LoopDelay | null;
}

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

export function monitorEventLoop(resolutionMs = 10): LoopMonitor {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  const read = (): LoopDelay | null =>
    histogram.count === 0 ? null : { p50_ms: ms(histogram.percentile(50)), p99_ms: ms(histogram.percentile(99)), max_ms: ms(histogram.max) };
  return {
    read,
    stop() {
      const last = read();
      histogram.disable();
      return last;
    },
  };
}
