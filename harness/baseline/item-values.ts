import { METRIC_DEFS } from "../../src/metrics/catalogue.ts";
import type { ItemContext } from "../../src/metrics/run-items.ts";
import type { CountRatioItem } from "../../src/stats/bootstrap.ts";

/**
 * One item's own value of each metric the catalogue gives a per-item value: the reduction whose
 * mean over items is the summary metric, by the very rule the summary estimates it with
 * (test/baseline/item-values.test.ts holds the two together). null when the item is in the
 * metric's base without a value. Item shares (`_majority`, `_any`) are the item's 0 or 1; an
 * injection twin carries its pair's values. Paired deltas, the gate's non-inferiority tests,
 * `compare` and `trend` pair runs on these; ratio metrics have their counts in itemRatios instead.
 */
export function itemValues(it: ItemContext): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const def of METRIC_DEFS) {
    if (def.perItem?.kind !== "value") continue;
    const v = def.perItem.of(it);
    if (v !== undefined) out[def.id] = v?.value ?? null;
  }
  return out;
}

/** One item's counts behind each ratio metric it enters (Σ num / Σ den over items in the summary). */
export function itemRatios(it: ItemContext): Record<string, CountRatioItem> {
  const out: Record<string, CountRatioItem> = {};
  for (const def of METRIC_DEFS) {
    if (def.perItem?.kind !== "counts") continue;
    const c = def.perItem.of(it);
    if (c !== undefined) out[def.id] = { num: c.num, den: c.den };
  }
  return out;
}
