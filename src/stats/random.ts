import { createHash } from "node:crypto";

/** A seeded uniform generator on [0, 1). */
export type Rng = () => number;

/**
 * Deterministic PRNG (mulberry32) seeded from any list of parts, e.g. (run seed, item, trial,
 * round, role): each distinct tuple gets an independent stream, so trials never share draws and a
 * run is reproducible.
 */
export function createRng(...parts: (string | number)[]): Rng {
  const digest = createHash("sha256").update(parts.map(String).join("\u0000")).digest();
  let state = digest.readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Bernoulli draw with probability p. */
export function chance(rng: Rng, p: number): boolean {
  return rng() < p;
}

/** Uniform integer in [0, n). */
export function pickIndex(rng: Rng, n: number): number {
  return Math.floor(rng() * n);
}
