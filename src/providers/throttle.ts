import pLimit from "p-limit";

interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const MINUTE_MS = 60_000;

const NO_WAIT: Promise<void> = Promise.resolve();

/**
 * Per-role concurrency and requests-per-minute limit. `run` holds a concurrency slot for the whole
 * task; each send inside it takes an RPM slot first (sliding one-minute window on the injected clock).
 */
export class Throttle {
  private readonly limit: <T>(fn: () => Promise<T>) => Promise<T>;
  private readonly starts: number[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(
    concurrency: number | undefined,
    private readonly rpm: number | undefined,
    private readonly clock: Clock,
  ) {
    // Without a limit a task starts at once: no queue, and none of the promises one costs per call.
    const limiter = concurrency === undefined ? null : pLimit(concurrency);
    this.limit = limiter === null ? (fn) => fn() : (fn) => limiter(fn);
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    return this.limit(task);
  }

  /** Wait until one more request fits in the last minute's budget, then count it. */
  acquire(): Promise<void> {
    if (this.rpm === undefined) return NO_WAIT;
    const turn = this.queue.then(() => this.waitForSlot());
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async waitForSlot(): Promise<void> {
    const rpm = this.rpm!;
    for (;;) {
      const now = this.clock.now();
      while (this.starts.length > 0 && this.starts[0]! <= now - MINUTE_MS) this.starts.shift();
      if (this.starts.length < rpm) {
        this.starts.push(now);
        return;
      }
      await this.clock.sleep(this.starts[0]! + MINUTE_MS - now);
    }
  }
}
