/**
 * Diff attribution (baselines/README.md, README "noise: the baseline was not unanimous on the item"):
 * a delta is noise only when the baseline already disagreed with itself on the item. A baseline
 * item with no counted verdict at all (its critic was unavailable in every trial) did not disagree
 * with itself: it has no verdict, so a candidate verdict there is not the baseline's noise.
 */
import { describe, expect, it } from "vitest";
import { diffSnapshots } from "../../harness/baseline/diff.ts";
import { buildSnapshot } from "../../harness/baseline/snapshot.ts";
import { makeFixture, makeManifest, makeTrials, type ItemSpec } from "../baseline/builders.ts";

const FIXTURES = [makeFixture("seeded-a", true)];
const snapshot = (items: ItemSpec[]) => buildSnapshot({ name: "t", manifest: makeManifest(items), trials: makeTrials(items), fixtures: FIXTURES, metrics: {} });
const all = (v: string) => Array<string>(5).fill(v);

describe("diff: noise needs a baseline that disagreed with itself", () => {
  it("leaves a verdict and a key appearing on an item with no counted baseline trial unexplained", () => {
    const base = snapshot([{ suite: "boundary", id: "seeded-a", verdicts: all("unavailable") }]);
    const cand = snapshot([{ suite: "boundary", id: "seeded-a", verdicts: all("block") }]);
    expect(base.items[0]).toMatchObject({ n_counted: 0, unanimous: null, modal_verdict: null });
    const d = diffSnapshots(base, cand);
    expect(d.deltas.map((x) => [x.kind, x.attribution, x.baseline_unstable])).toEqual([
      ["verdict", "unexplained", false],
      ["blocker_new", "unexplained", false],
    ]);
  });
  it("still calls a non-significant change on a split baseline item noise", () => {
    const base = snapshot([{ suite: "boundary", id: "seeded-a", verdicts: ["block", "block", "block", "pass", "unavailable"] }]);
    const cand = snapshot([{ suite: "boundary", id: "seeded-a", verdicts: ["block", "pass", "pass", "pass", "unavailable"] }]);
    expect(diffSnapshots(base, cand).deltas.map((x) => [x.kind, x.attribution])).toEqual([
      ["verdict", "noise"],
      ["blocker_lost", "noise"],
    ]);
  });
});
