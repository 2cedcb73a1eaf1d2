import { logChoose } from "./distributions.ts";

/**
 * Fisher's exact test, two-sided, on the 2×2 table [[a, b], [c, d]]: the probability, given the
 * margins, of a table at most as likely as the observed one. The exact within-item test of
 * "baseline and candidate trials come from one verdict distribution" (trials of one item are
 * exchangeable; trials of two runs are not paired one to one). 1 when a margin is empty.
 */
export function fisherExact(a: number, b: number, c: number, d: number): number {
  const r1 = a + b;
  const r2 = c + d;
  const c1 = a + c;
  const n = r1 + r2;
  if (r1 === 0 || r2 === 0 || c1 === 0 || c1 === n) return 1;
  const logP = (x: number) => logChoose(r1, x) + logChoose(r2, c1 - x) - logChoose(n, c1);
  const observed = logP(a);
  let p = 0;
  for (let x = Math.max(0, c1 - r2); x <= Math.min(r1, c1); x++) {
    const lp = logP(x);
    // Relative tolerance, as R and SciPy use, so tables equally likely up to rounding count.
    if (lp <= observed + 1e-7) p += Math.exp(lp);
  }
  return Math.min(1, p);
}

/**
 * P(X ≥ k) for X ~ Binomial(total, q), the upper tail summed directly so a tiny p keeps its
 * precision. Conditioned on the total, the events of a run (n units) and a reference (nRef units)
 * at equal rates fall in the run with probability q = n/(n + nRef): with `total` events in all,
 * P(X ≥ k) is the exact conditional test that the run's rate exceeds the reference's. With no
 * reference event it is q^k (`trend` charts a rate at 0 this way).
 */
export function binomialUpperTail(k: number, total: number, q: number): number {
  if (k <= 0) return 1;
  if (k > total) return 0;
  let p = 0;
  for (let i = k; i <= total; i++) p += Math.exp(logChoose(total, i) + i * Math.log(q) + (total - i) * Math.log1p(-q));
  return Math.min(1, p);
}

/** The two one-sided tails of a count test, P(X ≥ x) and P(X ≤ x), and the smallest of each its margins allow. */
export interface CountTails {
  upper: number;
  lower: number;
  /** P(X = its largest value): the smallest upper tail any outcome with these margins could give. */
  minUpper: number;
  /** P(X = its smallest value): the smallest lower tail. */
  minLower: number;
}

/**
 * Fisher's exact test of two binomial rates, one-sided: x events of u units (trials or items, each
 * with the event or not) against y of U, conditioned on the K = x + y events in all. Under equal
 * rates X ~ Hypergeometric(u + U, K, u): P(X = i) = C(u, i) C(U, K − i) / C(u + U, K). Units of
 * fixed items with unequal rates vary less than binomial units, so the test is conservative there.
 */
export function hypergeometricTails(x: number, u: number, y: number, U: number): CountTails {
  const K = x + y;
  const [lo, hi] = [Math.max(0, K - U), Math.min(K, u)];
  const logP = (i: number) => logChoose(u, i) + logChoose(U, K - i) - logChoose(u + U, K);
  const sum = (from: number, to: number) => {
    let p = 0;
    for (let i = from; i <= to; i++) p += Math.exp(logP(i));
    return Math.min(1, p);
  };
  return { upper: sum(x, hi), lower: sum(lo, x), minUpper: sum(hi, hi), minLower: sum(lo, lo) };
}

/**
 * The tails of the exact conditional test of Poisson counts (binomialUpperTail): k of `total`
 * events in the run, X ~ Binomial(total, q) under equal rates; the smallest tails are q^total and
 * (1 − q)^total.
 */
export function binomialTails(k: number, total: number, q: number): CountTails {
  return { upper: binomialUpperTail(k, total, q), lower: 1 - binomialUpperTail(k + 1, total, q), minUpper: q ** total, minLower: (1 - q) ** total };
}
