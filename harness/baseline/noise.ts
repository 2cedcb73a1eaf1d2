/** ln(n!) by summation; the counts here are trial counts, so n stays small. */
function logFactorial(n: number): number {
  let s = 0;
  for (let k = 2; k <= n; k++) s += Math.log(k);
  return s;
}

function logChoose(n: number, k: number): number {
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}

/**
 * Fisher's exact test, two-sided, on the 2×2 table [[a, b], [c, d]]: the probability, given the
 * margins, of a table at most as likely as the observed one. This is the exact within-item test
 * of "baseline and candidate trials come from one verdict distribution" (trials of one item are
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
    if (lp <= observed + 1e-7) p += Math.exp(lp);
  }
  return Math.min(1, p);
}
