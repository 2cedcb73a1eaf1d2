import { metricDef } from "../../src/metrics/catalogue.ts";
import { pairedRatioDelta } from "../../src/stats/paired.ts";
import type { MeanInterval } from "../../src/stats/mean.ts";
import { itemKey, type Snapshot, type SnapshotItem } from "../../src/formats/snapshot.ts";

/** Items of A and B with the same key and the same content hash, in A's order: what paired tests pair. */
export function pairedItems(a: Snapshot, b: Snapshot): [SnapshotItem, SnapshotItem][] {
  const bItems = new Map(b.items.map((i) => [itemKey(i), i]));
  const out: [SnapshotItem, SnapshotItem][] = [];
  for (const ai of a.items) {
    const bi = bItems.get(itemKey(ai));
    if (bi && bi.item_hash === ai.item_hash) out.push([ai, bi]);
  }
  return out;
}

/** Whether a metric is a ratio of sums paired on its items' counts (the catalogue's pairing), and the snapshots record them. */
export function isRatioMetric(metric: string, ...sides: Snapshot[]): boolean {
  return metricDef(metric)?.pairing === "delta_method" && sides.every((s) => s.items.some((i) => metric in i.ratios));
}

/**
 * The paired difference A − B of a ratio metric (Σ num / Σ den over items) on the items of both
 * runs with the same content, by the delta method over the items' counts, clustered by fixture
 * group (pairedRatioDelta). null when a side has no unit on the paired items.
 */
export function ratioDelta(metric: string, a: Snapshot, b: Snapshot, conf = 0.95): MeanInterval | null {
  const rows = pairedItems(a, b).flatMap(([ai, bi]) => {
    const [ra, rb] = [ai.ratios[metric], bi.ratios[metric]];
    return ra || rb ? [{ aNum: ra?.num ?? 0, aDen: ra?.den ?? 0, bNum: rb?.num ?? 0, bDen: rb?.den ?? 0, cluster: bi.cluster }] : [];
  });
  return pairedRatioDelta(
    rows,
    conf,
    rows.map((r) => r.cluster),
  );
}

/**
 * Several snapshots of the same items (runs of one configuration) as one side of a paired test:
 * each item's per-item values averaged over the snapshots that have them (the mean of the runs' own
 * values, as a published baseline keeps them) and its ratio counts summed; its other fields are the
 * first snapshot's. An item whose content differs between the snapshots is left out. The metrics
 * are not pooled (empty): only the items are.
 */
export function pooledItems(snapshots: readonly Snapshot[], name: string): Snapshot {
  const first = snapshots[0];
  if (first === undefined) throw new RangeError("pooledItems: at least one snapshot");
  if (snapshots.length === 1) return { ...first, name, metrics: {} };
  const byKey = snapshots.map((s) => new Map(s.items.map((i) => [itemKey(i), i])));
  const items = first.items.flatMap((item): SnapshotItem[] => {
    const all = byKey.map((m) => m.get(itemKey(item)));
    if (all.some((i) => i === undefined || i.item_hash !== item.item_hash)) return [];
    const present = all as SnapshotItem[];
    const names = [...new Set(present.flatMap((i) => Object.keys(i.values)))];
    const values = Object.fromEntries(
      names.map((n) => {
        const known = present.map((i) => i.values[n]).filter((v): v is number => v !== null && v !== undefined);
        return [n, known.length ? known.reduce((s, v) => s + v, 0) / known.length : null];
      }),
    );
    const ratios = Object.fromEntries(
      [...new Set(present.flatMap((i) => Object.keys(i.ratios)))].map((n) => [
        n,
        { num: present.reduce((s, i) => s + (i.ratios[n]?.num ?? 0), 0), den: present.reduce((s, i) => s + (i.ratios[n]?.den ?? 0), 0) },
      ]),
    );
    return [{ ...item, values, ratios }];
  });
  return { ...first, name, runs: snapshots.flatMap((s) => s.runs), metrics: {}, between_runs: {}, items };
}
