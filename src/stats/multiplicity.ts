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
