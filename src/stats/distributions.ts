/**
 * Distribution functions the intervals and tests need: normal, Student t, beta, χ² and binomial.
 * Pure numerics, accurate to about 1e-10 over the ranges an evaluation uses.
 */

/** Standard normal CDF: Φ(x) = ½ erfc(−x/√2) with erfc(z) = Q(½, z²) for z ≥ 0, full double precision. */
export function normalCdf(x: number): number {
  if (!Number.isFinite(x)) return x > 0 ? 1 : 0;
  const q = upperGammaRegularized(0.5, (x * x) / 2);
  return x < 0 ? 0.5 * q : 1 - 0.5 * q;
}

/** Inverse standard normal CDF (Acklam's rational approximation, one Halley refinement step). */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`normalQuantile: p must be in [0, 1], got ${p}`);
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const horner = (coeffs: number[], v: number) => coeffs.reduce((acc, k) => acc * v + k, 0);
  // Lower tail; the upper tail is its mirror image.
  const tail = (q: number) => horner(c, q) / horner([...d, 1], q);
  const low = 0.02425;
  let x: number;
  if (p < low) x = tail(Math.sqrt(-2 * Math.log(p)));
  else if (p > 1 - low) x = -tail(Math.sqrt(-2 * Math.log(1 - p)));
  else {
    const q = p - 0.5;
    x = (horner(a, q * q) * q) / horner([...b, 1], q * q);
  }
  // Halley step against the exact CDF brings the 1e-9 approximation to machine precision.
  const e = normalCdf(x) - p;
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
  return x - u / (1 + (x * u) / 2);
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9). */
function logGamma(x: number): number {
  const g = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const xm = x - 1;
  let sum = g[0]!;
  for (let i = 1; i < 9; i++) sum += g[i]! / (xm + i);
  const t = xm + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (xm + 0.5) * Math.log(t) - t + Math.log(sum);
}

const TINY = 1e-300;
const EPS = 1e-16;

/** Regularized upper incomplete gamma Q(a, x): series below a + 1, Lentz continued fraction above (NR gser/gcf). */
function upperGammaRegularized(a: number, x: number): number {
  if (x <= 0) return 1;
  const lnPrefix = a * Math.log(x) - x - logGamma(a);
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 1000 && Math.abs(term) > Math.abs(sum) * EPS; n++) {
      term *= x / (a + n);
      sum += term;
    }
    return 1 - sum * Math.exp(lnPrefix);
  }
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPS) break;
  }
  return Math.exp(lnPrefix) * h;
}

/** P(X ≥ x) for X ~ χ² with df degrees of freedom: Q(df/2, x/2). */
export function chiSquareUpperTail(x: number, df: number): number {
  if (!(df > 0)) throw new RangeError("chiSquareUpperTail: df must be positive");
  return upperGammaRegularized(df / 2, x / 2);
}

/** Regularized incomplete beta I_x(a, b) (Lentz continued fraction, Numerical Recipes betacf). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (!(a > 0 && b > 0)) throw new RangeError("incompleteBeta: a and b must be positive");
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  // The fraction converges fast below (a+1)/(a+b+2); use the symmetry I_x(a,b) = 1 − I_{1−x}(b,a) above.
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  const lnFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
  const clamp = (v: number) => (Math.abs(v) < TINY ? TINY : v);
  let c = 1;
  let d = 1 / clamp(1 - ((a + b) * x) / (a + 1));
  let h = d;
  for (let m = 1; m < 1000; m++) {
    const m2 = 2 * m;
    const even = (m * (b - m) * x) / ((a - 1 + m2) * (a + m2));
    d = 1 / clamp(1 + even * d);
    c = clamp(1 + even / c);
    h *= d * c;
    const odd = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + 1 + m2));
    d = 1 / clamp(1 + odd * d);
    c = clamp(1 + odd / c);
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPS) break;
  }
  return (Math.exp(lnFront) * h) / a;
}

/** Inverse of I_x(a, b) in x: bisection safeguarded Newton, to ~1e-13. */
export function betaQuantile(p: number, a: number, b: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`betaQuantile: p must be in [0, 1], got ${p}`);
  if (p === 0) return 0;
  if (p === 1) return 1;
  let lo = 0;
  let hi = 1;
  let x = a / (a + b);
  const lnNorm = logGamma(a + b) - logGamma(a) - logGamma(b);
  for (let i = 0; i < 200; i++) {
    const f = incompleteBeta(x, a, b) - p;
    if (f > 0) hi = x;
    else lo = x;
    const density = Math.exp(lnNorm + (a - 1) * Math.log(x) + (b - 1) * Math.log1p(-x));
    let next = x - f / density;
    if (!(next > lo && next < hi) || !Number.isFinite(next)) next = (lo + hi) / 2;
    if (Math.abs(next - x) < 1e-15 || hi - lo < 1e-15) return next;
    x = next;
  }
  return x;
}

/** Student t CDF with df degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  if (!(df > 0)) throw new RangeError("studentTCdf: df must be positive");
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0;
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

/** Student t quantile: the t with P(T ≤ t) = p, from the beta quantile. */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`studentTQuantile: p must be in (0, 1), got ${p}`);
  if (!(df > 0)) throw new RangeError("studentTQuantile: df must be positive");
  if (p === 0.5) return 0;
  const tail = Math.min(p, 1 - p);
  const x = betaQuantile(2 * tail, df / 2, 0.5);
  const t = Math.sqrt((df * (1 - x)) / x);
  return p < 0.5 ? -t : t;
}

/** P(X ≤ k) for X ~ Binomial(n, prob), summed exactly in log space. */
export function binomialCdf(k: number, n: number, prob: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  let sum = 0;
  for (let i = 0; i <= k; i++) sum += Math.exp(logChoose(n, i) + i * Math.log(prob) + (n - i) * Math.log1p(-prob));
  return Math.min(1, sum);
}

/** ln C(n, k) through ln Γ, so large binomial coefficients keep their precision. */
export function logChoose(n: number, k: number): number {
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}
