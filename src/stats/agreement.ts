/**
 * Agreement over repeated trials. An item's input is its verdict counts n_ic over a fixed list of
 * categories (the same order for every item); trials are exchangeable replicates, not raters.
 */

function total(counts: readonly number[]): number {
  return counts.reduce((s, n) => s + n, 0);
}

/** Σ_c n_c (n_c − 1): ordered pairs of trials that agree. */
function agreeingPairs(counts: readonly number[]): number {
  return counts.reduce((s, n) => s + n * (n - 1), 0);
}

/**
 * Q_i = 1 − Σ_c n_ic(n_ic − 1) / (N_i(N_i − 1)) (docs/design.md §10): the unbiased probability that two
 * distinct trials of the item disagree. null when the item has fewer than two trials.
 */
export function pairwiseDisagreement(counts: readonly number[]): number | null {
  const n = total(counts);
  return n < 2 ? null : 1 - agreeingPairs(counts) / (n * (n - 1));
}

/**
 * Cross-run disagreement 1 − Σ_c p̂_c^A p̂_c^B: the probability that a trial of run A and a trial
 * of run B on the same item disagree (all N_A × N_B pairs). null when either run has no trial.
 */
export function crossDisagreement(a: readonly number[], b: readonly number[]): number | null {
  const na = total(a);
  const nb = total(b);
  if (na === 0 || nb === 0) return null;
  return 1 - a.reduce((s, n, c) => s + (n / na) * ((b[c] ?? 0) / nb), 0);
}

/** Items with at least two trials: the only ones that carry agreement information. */
function pairable(itemCounts: readonly (readonly number[])[]): (readonly number[])[] {
  return itemCounts.filter((c) => total(c) >= 2);
}

/** Mean observed agreement P̄ = mean_i (1 − Q_i) over pairable items. */
function meanAgreement(items: readonly (readonly number[])[]): number {
  return items.reduce((s, c) => s + (1 - (pairwiseDisagreement(c) as number)), 0) / items.length;
}

/**
 * Fleiss' κ = (P̄ − P̄_e)/(1 − P̄_e) with P̄_e = Σ_c p_c², p_c pooled over all trials of pairable
 * items. Unequal N_i use each item's own P_i. null when fewer than one pairable item or P̄_e = 1.
 */
export function fleissKappa(itemCounts: readonly (readonly number[])[]): number | null {
  const items = pairable(itemCounts);
  if (items.length === 0) return null;
  const k = items[0]!.length;
  const grand = items.reduce((s, c) => s + total(c), 0);
  let pe = 0;
  for (let c = 0; c < k; c++) {
    const pc = items.reduce((s, it) => s + (it[c] ?? 0), 0) / grand;
    pe += pc * pc;
  }
  if (pe === 1) return null;
  return (meanAgreement(items) - pe) / (1 - pe);
}

/**
 * Krippendorff's α, nominal (methodology §9.1): α = 1 − D_o/D_e over pairable items, with
 * D_o = (1/n..) Σ_i (m_i² − Σ_c n_ic²)/(m_i − 1) and D_e = (n..² − Σ_c n_c²)/(n..(n.. − 1)).
 * Items with one trial carry no pairable value and drop out (missing values). α := 1 when D_e = 0;
 * null with no pairable item. One pass, no allocation beyond the category totals: the bootstrap
 * evaluates it thousands of times per metric.
 */
export function krippendorffAlphaNominal(itemCounts: readonly (readonly number[])[]): number | null {
  let grand = 0;
  let disagreeing = 0;
  let categoryTotals: number[] | null = null;
  for (const c of itemCounts) {
    const m = total(c);
    if (m < 2) continue;
    categoryTotals ??= new Array<number>(c.length).fill(0);
    let squares = 0;
    for (let k = 0; k < c.length; k++) squares += c[k]! * c[k]!;
    for (let k = 0; k < categoryTotals.length; k++) categoryTotals[k]! += c[k] ?? 0;
    grand += m;
    disagreeing += (m * m - squares) / (m - 1);
  }
  if (categoryTotals === null) return null;
  const observed = disagreeing / grand;
  const sumSquares = categoryTotals.reduce((s, n) => s + n * n, 0);
  const expected = (grand * grand - sumSquares) / (grand * (grand - 1));
  return expected === 0 ? 1 : 1 - observed / expected;
}

/**
 * Gwet's AC1 = (P_a − P_e)/(1 − P_e), P_e = Σ_c π_c(1 − π_c)/(K − 1), π_c = mean_i n_ic/N_i over
 * pairable items. K counts every verdict category, used or not (methodology §9.1). One pass, as
 * krippendorffAlphaNominal.
 */
export function gwetAC1(itemCounts: readonly (readonly number[])[], K: number): number | null {
  if (!(Number.isInteger(K) && K >= 2)) throw new RangeError("gwetAC1: K must be an integer ≥ 2");
  let items = 0;
  let agreement = 0;
  const shares = new Array<number>(K).fill(0);
  for (const c of itemCounts) {
    const m = total(c);
    if (m < 2) continue;
    items++;
    agreement += 1 - (1 - agreeingPairs(c) / (m * (m - 1)));
    for (let k = 0; k < K; k++) shares[k]! += (c[k] ?? 0) / m;
  }
  if (items === 0) return null;
  let pe = 0;
  for (const share of shares) {
    const pi = share / items;
    pe += pi * (1 - pi);
  }
  pe /= K - 1;
  const pa = agreement / items;
  return (pa - pe) / (1 - pe);
}
