/**
 * Holm step-down adjusted p-values (family-wise error control, uniformly better than Bonferroni),
 * returned in the input order: reject hypothesis j at level α when adjusted[j] ≤ α.
 */
export function holm(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p || x.i - y.i);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

/**
 * Holm within families, in the input order: `familyOf(i)` names test i's family (one family by
 * default), and a null p is no test (its adjusted p is null and it does not count in any family).
 */
export function holmByFamily(pValues: readonly (number | null)[], familyOf: (i: number) => string = () => ""): (number | null)[] {
  const families = new Map<string, number[]>();
  pValues.forEach((p, i) => {
    if (p === null) return;
    const at = families.get(familyOf(i)) ?? [];
    at.push(i);
    families.set(familyOf(i), at);
  });
  const adjusted: (number | null)[] = pValues.map(() => null);
  for (const at of families.values()) holm(at.map((i) => pValues[i]!)).forEach((p, k) => (adjusted[at[k]!] = p));
  return adjusted;
}

/**
 * Which tests of one family share α (Tarone): with m the least k ≥ 1 such that at most k tests
 * have a smallest p (`minP`) ≤ α/k, those tests. Holm runs over them, so the first alarms at α
 * over their number.
 */
export function taroneTestable(minP: readonly number[], alpha: number): boolean[] {
  const reachable = (k: number) => minP.filter((p) => p <= alpha / k).length;
  let k = 1;
  while (reachable(k) > k) k++;
  return minP.map((p) => p <= alpha / k);
}

/**
 * Holm within families over the tests that can reach the level (Tarone 1990, with Holm's step-down):
 * a discrete test's p cannot fall below the smallest p its margins allow (`minP`: an exact count
 * test with no event on either side can only give 1), so it takes no share of α when that smallest p
 * exceeds α/m. Per family, m is the least k ≥ 1 with at most k tests whose minP ≤ α/k; those tests
 * are the testable ones and Holm runs over them. Margins fix minP, so each test stays valid given
 * them and the family-wise error stays at α. A test outside the testable set has adjusted p 1
 * (it cannot reject at α); a null p is no test, as in holmByFamily. With every minP 0 (continuous
 * tests) this is holmByFamily.
 */
export function holmTaroneByFamily(
  pValues: readonly (number | null)[],
  minP: readonly number[],
  alpha: number,
  familyOf: (i: number) => string = () => "",
): (number | null)[] {
  const testable = pValues.map(() => false);
  const families = new Map<string, number[]>();
  pValues.forEach((p, i) => {
    if (p !== null) families.set(familyOf(i), [...(families.get(familyOf(i)) ?? []), i]);
  });
  for (const at of families.values())
    taroneTestable(
      at.map((i) => minP[i]!),
      alpha,
    ).forEach((ok, j) => (testable[at[j]!] = ok));
  const adjusted = holmByFamily(
    pValues.map((p, i) => (testable[i] ? p : null)),
    familyOf,
  );
  return pValues.map((p, i) => (p === null ? null : testable[i] ? adjusted[i]! : 1));
}
