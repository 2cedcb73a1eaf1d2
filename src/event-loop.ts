import { monitorEventLoopDelay, performance } from "node:perf_hooks";

/**
 * What a thread saw of its own event loop over a window: how late timers fired (ms), and how busy
 * the loop was (time spent running code, GC pauses included, and its share of the window).
 */
export interface LoopDelay {
  delay_p50_ms: number;
  delay_p99_ms: number;
  delay_max_ms: number;
  busy_ms: number;
  utilization: number;
}

/** The same, with the process's CPU time (user + system, all threads) over the window. */
export interface LoopStats extends LoopDelay {
  cpu_ms: number;
}

export interface LoopMonitor<S = LoopStats> {
  /** What was seen so far; null before the first delay sample. */
  read(): S | null;
  stop(): S | null;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Watches this thread's event loop (a worker thread's too). */
export function monitorLoopDelay(resolutionMs = 10): LoopMonitor<LoopDelay> {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  const since = performance.eventLoopUtilization();
  histogram.enable();
  const read = (): LoopDelay | null => {
    if (histogram.count === 0) return null;
    const used = performance.eventLoopUtilization(since);
    return {
      delay_p50_ms: round2(histogram.percentile(50) / 1e6),
      delay_p99_ms: round2(histogram.percentile(99) / 1e6),
      delay_max_ms: round2(histogram.max / 1e6),
      busy_ms: Math.round(used.active),
      utilization: Math.round(used.utilization * 1000) / 1000,
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

/** Watches the main thread's event loop, with the process's CPU time over the same window. */
export function monitorEventLoop(resolutionMs = 10): LoopMonitor<LoopStats> {
  const loop = monitorLoopDelay(resolutionMs);
  const cpuSince = process.cpuUsage();
  const withCpu = (delay: LoopDelay | null): LoopStats | null => {
    if (delay === null) return null;
    const cpu = process.cpuUsage(cpuSince);
    return { ...delay, cpu_ms: Math.round((cpu.user + cpu.system) / 1000) };
  };
  return { read: () => withCpu(loop.read()), stop: () => withCpu(loop.stop()) };
}
