import { monitorEventLoopDelay, performance } from "node:perf_hooks";
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

export interface LoopMonitor {
  /** What was seen so far; null before the first delay sample. */
  read(): LoopStats | null;
  stop(): LoopStats | null;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

export function monitorEventLoop(resolutionMs = 10): LoopMonitor {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  const since = performance.eventLoopUtilization();
  const cpuSince = process.cpuUsage();
  histogram.enable();
  const read = (): LoopStats | null => {
    if (histogram.count === 0) return null;
    const used = performance.eventLoopUtilization(since);
    const cpu = process.cpuUsage(cpuSince);
    return {
      delay_p50_ms: round2(histogram.percentile(50) / 1e6),
      delay_p99_ms: round2(histogram.percentile(99) / 1e6),
      delay_max_ms: round2(histogram.max / 1e6),
      busy_ms: Math.round(used.active),
      utilization: Math.round(used.utilization * 1000) / 1000,
      cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
    };
  };
  return {
    read,
    stop() {
      const last = read();
      histogram.disable();
      return last;
    },
  };
}
