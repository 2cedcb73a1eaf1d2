import { GATE_CODES, isGateCode } from "../../src/formats/findings.ts";
import { clusterBootstrap } from "../../src/stats/bootstrap.ts";
import { meanInterval } from "../../src/stats/mean.ts";
import { pairedSwapTest, type PairedVectors } from "../../src/stats/permutation.ts";
import { pairedItems } from "./paired.ts";
import type { Snapshot } from "../../src/formats/snapshot.ts";

/**
 * The defect-family profile of two runs on the same goals: which structural mistakes each run's
 * plans were blocked for, by family and origin (gate or critic), per goal. Did the other model make
 * different mistakes, or the same ones in other words?
 */
interface ProfileCell {
  origin: "gate" | "critic";
  family: string;
  /** Distinct blocker keys of this origin and family per trial, mean over goals. */
  a: number;
  b: number;
  /** Paired per-goal difference A − B with its clustered 95% t-interval. */
  delta: number;
  ci_low: number | null;
  ci_high: number | null;
}

export interface DefectProfile {
  /** Goals paired (engine items in both runs with the same content), and the fixture groups they form. */
  n_goals: number;
  cells: ProfileCell[];
  /** All blockers per goal, A and B, and the paired difference. */
  total: { a: number; b: number; delta: number; ci_low: number | null; ci_high: number | null };
  /**
   * How far apart the two profiles' shapes are: the total variation distance ½ Σ |s_A − s_B| between
   * the shares of blockers by (origin, family), 0 for the same mix, 1 for disjoint ones; its cluster
   * bootstrap interval, and the permutation p of "the same profile" (A and B swapped per fixture
   * group). null without a blocker in either run.
   */
  distance: { statistic: number | null; ci_low: number | null; ci_high: number | null; p: number | null; reps: number; seed: number };
}

/** The family a blocker key is filed under: a gate code's family, a critic key's own; `pack` for a pack rule's. */
export function blockerKeyCell(key: string): { origin: "gate" | "critic"; family: string } {
  const [head, second] = key.split(":");
  if (head === "critic") return { origin: "critic", family: second ?? "unknown" };
  return { origin: "gate", family: second !== undefined && isGateCode(second) ? GATE_CODES[second].family : "pack" };
}

const cellName = (c: { origin: string; family: string }) => `${c.origin}:${c.family}`;

/** Total variation distance between the share vectors of two count vectors (null when either has none). */
function shareDistance(a: readonly number[], b: readonly number[]): number | null {
  const [ta, tb] = [a.reduce((s, x) => s + x, 0), b.reduce((s, x) => s + x, 0)];
  if (!(ta > 0) || !(tb > 0)) return null;
  return a.reduce((s, x, i) => s + Math.abs(x / ta - b[i]! / tb), 0) / 2;
}

/** Σ over units of each side's vector, then their share distance. */
const distanceOf = (units: readonly PairedVectors[]) => {
  const width = units[0]?.a.length ?? 0;
  const sum = (side: "a" | "b") => Array.from({ length: width }, (_, i) => units.reduce((s, u) => s + u[side][i]!, 0));
  return shareDistance(sum("a"), sum("b"));
};

/**
 * The defect-family profile of A against B over the goals of both (engine items with the same
 * content; boundary fixtures when the runs have no goal): per goal, each cell's distinct blocker
 * keys per counted trial (the snapshot's blocker counts over its counted trials), paired.
 */
export function defectProfile(a: Snapshot, b: Snapshot, opts: { reps: number; seed: number }): DefectProfile {
  const all = pairedItems(a, b);
  const goals = all.some(([ai]) => ai.scheme === "engine") ? all.filter(([ai]) => ai.scheme === "engine") : all;
  const used = goals.filter(([ai, bi]) => ai.n_counted > 0 && bi.n_counted > 0);
  const cells = [
    ...new Map(
      used
        .flatMap(([ai, bi]) => [...Object.keys(ai.blocker_key_counts), ...Object.keys(bi.blocker_key_counts)])
        .map((k) => [cellName(blockerKeyCell(k)), blockerKeyCell(k)]),
    ).values(),
  ].sort((x, y) => (cellName(x) < cellName(y) ? -1 : 1));
  const vector = (counts: Record<string, number>, n: number) => {
    const v = cells.map(() => 0);
    for (const [key, c] of Object.entries(counts)) v[cells.findIndex((cell) => cellName(cell) === cellName(blockerKeyCell(key)))]! += c / n;
    return v;
  };
  const units: PairedVectors[] = used.map(([ai, bi]) => ({
    a: vector(ai.blocker_key_counts, ai.n_counted),
    b: vector(bi.blocker_key_counts, bi.n_counted),
    cluster: bi.cluster,
  }));
  const clusters = units.map((u) => u.cluster);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
  const paired = (pick: (u: PairedVectors, side: "a" | "b") => number) => {
    const ci = meanInterval(
      units.map((u) => pick(u, "a") - pick(u, "b")),
      0.95,
      clusters,
    );
    return {
      a: mean(units.map((u) => pick(u, "a"))),
      b: mean(units.map((u) => pick(u, "b"))),
      delta: ci?.mean ?? 0,
      ci_low: ci?.low ?? null,
      ci_high: ci?.high ?? null,
    };
  };
  const sumOf = (v: readonly number[]) => v.reduce((s, x) => s + x, 0);
  const test = pairedSwapTest(units, distanceOf, opts);
  const boot = clusterBootstrap(units, distanceOf, { reps: opts.reps, seed: opts.seed, stream: "defect-profile", clusterOf: (u) => u.cluster });
  return {
    n_goals: units.length,
    cells: cells.map((cell, i) => ({ ...cell, ...paired((u, side) => u[side][i]!) })),
    total: paired((u, side) => sumOf(u[side])),
    distance: { statistic: test.statistic, ci_low: boot.low, ci_high: boot.high, p: test.p, reps: opts.reps, seed: opts.seed },
  };
}
