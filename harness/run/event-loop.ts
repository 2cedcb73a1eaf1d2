import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import type { LoopStats } from "./loop-stats.ts";

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
