import { describe, expect, it } from "vitest";
import { buildSnapshot } from "../../harness/baseline/snapshot.ts";
import { diffSnapshots } from "../../harness/baseline/diff.ts";
import { fisherExact } from "../../harness/baseline/noise.ts";
import type { Manifest } from "../../harness/run/manifest.ts";
import { makeFixture, makeManifest, makeTrials, type ItemSpec } from "./builders.ts";

const N = 5;
const all = (v: string) => Array<string>(N).fill(v);

/** Every baseline item is unanimous, so noise can never explain a change: only a recorded cause can. */
const BASE: ItemSpec[] = [
  { suite: "boundary", id: "seeded-a", verdicts: all("block") },
  { suite: "boundary", id: "seeded-b", verdicts: all("block") },
  { suite: "boundary", id: "clean-a", verdicts: all("pass") },
  { suite: "corpus", id: "goal-a", verdicts: all("approved") },
  { suite: "corpus", id: "goal-b", verdicts: all("escalated") },
];
const FIXTURES = [makeFixture("seeded-a", true), makeFixture("seeded-b", true), makeFixture("clean-a", false)];

function snapshot(items: ItemSpec[], patch?: (m: Manifest) => void) {
  return buildSnapshot({ name: "t", manifest: makeManifest(items, patch), trials: makeTrials(items), fixtures: FIXTURES, metrics: {} });
}

/** The candidate's behaviour: two boundary verdicts flip, a new critic key appears, a corpus goal flips. */
function changedItems(): ItemSpec[] {
  return BASE.map((s) => {
    if (s.id === "seeded-a") return { ...s, verdicts: all("pass") };
    if (s.id === "clean-a") return { ...s, verdicts: all("block"), keys: all("").map(() => ["critic:unsafe_sequencing:change:misordered:change,inspect"]) };
    if (s.id === "goal-a") return { ...s, verdicts: all("escalated") };
    return s;
  });
}

const baseline = snapshot(BASE);

/** The critic's recorded prompt hashes (`roles.critic.prompt`, as the runner writes them). */
const prompt = (m: Manifest) => (m.roles.critic as unknown as { prompt: Record<string, unknown> }).prompt;

describe("diff attribution", () => {
  it("a run equal to the baseline has no deltas and is compatible", () => {
    const d = diffSnapshots(baseline, snapshot(BASE));
    expect(d.deltas).toEqual([]);
    expect(d.compatible).toBe(true);
  });

  it("without a recorded cause, changes on unanimous baseline items are unexplained", () => {
    const d = diffSnapshots(baseline, snapshot(changedItems()));
    expect(d.deltas.length).toBeGreaterThan(0);
    expect(d.unexplained).toHaveLength(d.deltas.length);
  });

  const cases: [string, (m: Manifest) => void, string, string][] = [
    ["temperature", (m) => void (m.roles.critic.temperature = 0.9), "temperature", "critic.temperature"],
    ["critic prompt hash", (m) => void (prompt(m).system_sha256 = "sys-v2"), "prompt", "critic.system_prompt_sha256"],
    ["critic user template hash", (m) => void (prompt(m).user_template_sha256 = { review: "tpl-v2" }), "prompt", "critic.user_template_sha256"],
    ["critic schema hash", (m) => void (prompt(m).schema_sha256 = "sch-v2"), "schema", "critic.schema_sha256"],
    ["critic model", (m) => void (m.roles.critic.model = "other-critic"), "model", "critic.model"],
    ["one gate version", (m) => void (m.gate_versions.ordering_sane = "2"), "gate_version", "gate_versions.ordering_sane"],
  ];
  for (const [label, patch, kind, part] of cases) {
    it(`changing only the ${label} attributes every delta to it`, () => {
      const d = diffSnapshots(baseline, snapshot(changedItems(), patch));
      expect(d.differences.map((x) => x.part)).toEqual([part]);
      expect(d.compatible).toBe(false);
      // verdict deltas on seeded-a, clean-a, goal-a; a new and a lost key on clean-a; a lost key on seeded-a; a new key on goal-a
      expect(d.deltas.length).toBeGreaterThanOrEqual(5);
      expect(d.unexplained).toEqual([]);
      for (const delta of d.deltas) {
        expect(delta.attribution).toBe("cause");
        expect(delta.causes.map((c) => c.kind)).toEqual([kind]);
      }
    });
  }

  it("a planner-only change explains corpus deltas but not critic-only (boundary) ones", () => {
    const d = diffSnapshots(baseline, snapshot(changedItems(), (m) => void (m.roles.planner.temperature = 0.9)));
    for (const delta of d.deltas) {
      expect(delta.attribution).toBe(delta.item.startsWith("corpus/") ? "cause" : "unexplained");
    }
  });

  it("changing only one corpus item's hash attributes its deltas to that item and nothing else", () => {
    const items = BASE.map((s) => (s.id === "seeded-b" ? { ...s, hash: "hash-seeded-b-v2", verdicts: all("pass"), keys: all("").map(() => []) } : s));
    const d = diffSnapshots(baseline, snapshot(items, (m) => void (m.corpus.hash = "corpus-hash-v2")));
    expect(d.coverage.changed).toEqual(["boundary/seeded-b"]);
    expect(d.deltas.map((x) => [x.item, x.kind])).toEqual([
      ["boundary/seeded-b", "verdict"],
      ["boundary/seeded-b", "blocker_lost"],
    ]);
    expect(d.unexplained).toEqual([]);
    for (const delta of d.deltas) expect(delta.causes.map((c) => c.kind)).toEqual(["corpus_item"]);
  });

  it("an item hash change does not explain a delta on another item", () => {
    const items = changedItems().map((s) => (s.id === "seeded-b" ? { ...s, hash: "hash-seeded-b-v2" } : s));
    const d = diffSnapshots(baseline, snapshot(items));
    expect(d.unexplained.length).toBe(d.deltas.length);
  });

  it("attributes a change on an item the baseline disagreed on, with no significant test, to noise", () => {
    const base: ItemSpec[] = [{ suite: "boundary", id: "seeded-a", verdicts: ["block", "block", "block", "pass", "pass"] }];
    const cand: ItemSpec[] = [{ suite: "boundary", id: "seeded-a", verdicts: ["block", "block", "pass", "pass", "pass"] }];
    const d = diffSnapshots(snapshot(base), snapshot(cand));
    const verdict = d.deltas.find((x) => x.kind === "verdict")!;
    expect(verdict.baseline).toBe("block");
    expect(verdict.candidate).toBe("pass");
    expect(verdict.attribution).toBe("noise");
    expect(verdict.p_value).toBeCloseTo(1, 10);
    expect(d.unexplained).toEqual([]);
  });

  it("a decisive flip on a unanimous baseline item is unexplained even though N = 5 is small", () => {
    const d = diffSnapshots(snapshot([BASE[0]!]), snapshot([{ ...BASE[0]!, verdicts: all("pass") }]));
    const verdict = d.deltas.find((x) => x.kind === "verdict")!;
    expect(verdict.attribution).toBe("unexplained");
    expect(verdict.p_value).toBeCloseTo(2 / 252, 10);
  });
});

describe("fisherExact", () => {
  // methodology-notes §9.9: 5/0 vs 0/5 has Fisher p ≈ 0.008; 4/1 vs 1/4 ≈ 0.21.
  it("matches the known values", () => {
    expect(fisherExact(5, 0, 0, 5)).toBeCloseTo(0.0079365, 6);
    expect(fisherExact(4, 1, 1, 4)).toBeCloseTo(0.2063492, 6);
    expect(fisherExact(3, 2, 3, 2)).toBeCloseTo(1, 10);
    expect(fisherExact(0, 0, 3, 2)).toBe(1);
  });
});
