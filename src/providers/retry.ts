/** Transport retry policy: the one place retries are decided (the SDKs run with maxRetries 0). */
const RETRY_BASE_MS = 500;
export const RETRY_CAP_MS = 30_000;
/** A Retry-After longer than this is not waited out: the attempt fails instead of stalling a sweep. */
export const RETRY_AFTER_CAP_MS = 120_000;

/**
 * Delay before transport retry number `retry` (0-based), or null when the server asks for a wait
 * above RETRY_AFTER_CAP_MS: retrying sooner would go against it, so the attempt fails. A server's
 * Retry-After is honoured as given; otherwise exponential backoff with "equal jitter" (half fixed,
 * half random) so that concurrent trials do not retry in lockstep. `random` is a uniform draw in [0, 1).
 */
export function retryDelayMs(retry: number, retryAfterMs: number | null, random: number): number | null {
  if (retryAfterMs !== null) return retryAfterMs <= RETRY_AFTER_CAP_MS ? retryAfterMs : null;
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** retry);
  return ceiling / 2 + (ceiling / 2) * random;
}
