import { describe, expect, it } from "vitest";
import { causesForItem, configDifferences } from "../../harness/baseline/compat.ts";
import { diffSnapshots, type Delta } from "../../harness/baseline/diff.ts";
import { formatDiff } from "../../harness/cli/commands/diff.ts";
import type { Manifest } from "../../src/formats/manifest.ts";
import type { TrialRecord } from "../../src/formats/records.ts";
import { call } from "../metrics/builders.ts";
import { makeFixture, makeSnapshot, type ItemSpec } from "./builders.ts";

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

function snapshot(items: ItemSpec[] | ItemSpec[][], patch?: (m: Manifest) => void) {
  return makeSnapshot(items, FIXTURES, patch);
}

/** The baseline pooled from five runs of the same behaviour (25 trials per item), as a published baseline is. */
const pooled = (items: ItemSpec[], patch?: (m: Manifest) => void) => snapshot([items, items, items, items, items], patch);

/** The candidate's behaviour: two boundary verdicts flip, a new critic key appears, a corpus goal flips. */
function changedItems(): ItemSpec[] {
  return BASE.map((s) => {
    if (s.id === "seeded-a") return { ...s, verdicts: all("pass") };
    if (s.id === "clean-a") return { ...s, verdicts: all("block"), keys: all("").map(() => ["critic:unsafe_sequencing:change:misordered:change,inspect"]) };
    if (s.id === "goal-a") return { ...s, verdicts: all("escalated") };
    return s;
  });
}

const baseline = pooled(BASE);

/** The critic's recorded prompt hashes (`roles.critic.prompt`, as the runner writes them). */
const prompt = (m: Manifest) => (m.roles.critic as unknown as { prompt: Record<string, unknown> }).prompt;

describe("diff attribution (docs/design.md §11)", () => {
  it("a run equal to the baseline's behaviour has no deltas; the differing seed is named, not a cause", () => {
    const d = diffSnapshots(
      baseline,
      snapshot(BASE, (m) => void (m.config.seed = 7)),
    );
    expect(d.deltas).toEqual([]);
    expect(d.differences).toEqual([{ kind: "seed", part: "run seed", role: null, baseline: [0, 1, 2, 3, 4], candidate: 7 }]);
  });

  it("a unanimous 5/0 baseline item against 2/3 is noise (Fisher p = 1/6)", () => {
    const base = snapshot([{ suite: "boundary", id: "seeded-a", verdicts: all("block") }]);
    const cand = snapshot([{ suite: "boundary", id: "seeded-a", verdicts: ["block", "block", "pass", "pass", "pass"] }]);
    const verdict = diffSnapshots(base, cand).deltas.find((x) => x.kind === "verdict")!;
    expect(verdict).toMatchObject({ baseline: "block", candidate: "pass", attribution: "noise", beyond_noise: false });
    expect(verdict.p_value).toBeCloseTo(1 / 6, 12);
  });

  it("at N = 5 against N = 5 no single item of a diff of 7 items or more can be beyond noise: 5/0 against 0/5 is p = 0.0079 before Holm", () => {
    // Holm's first step over m tests is α/m: 0.05/8 = 0.00625 < 2/252, for the 8 items' verdict tests and for the 8 blocker keys' tests.
    const steady: ItemSpec[] = ["goal-c", "goal-d", "goal-e"].map((id) => ({
      suite: "corpus",
      id,
      verdicts: all("escalated"),
      keys: all("").map(() => [`gate:rollback_missing:${id}`]),
    }));
    const d = diffSnapshots(snapshot([...BASE, ...steady]), snapshot([...changedItems(), ...steady]));
    expect(d.deltas.length).toBeGreaterThan(0);
    expect(d.deltas.every((x) => x.attribution === "noise")).toBe(true);
    expect(d.power.smallest_p).toBeCloseTo(2 / 252, 12);
    expect(d.power).toMatchObject({ holm_first_step: 0.05 / 8, key_holm_first_step: 0.05 / 8 });
    expect(formatDiff(d)).toContain("no single delta can be beyond noise");
    // With the same 8 items but the keys of 5 alone, a key can be beyond noise (0.05/5 > 2/252): the diff does not claim otherwise.
    const keyless = ["goal-c", "goal-d", "goal-e"].map((id) => ({ suite: "corpus" as const, id, verdicts: all("approved") }));
    const few = diffSnapshots(snapshot([...BASE, ...keyless]), snapshot([...changedItems(), ...keyless]));
    expect(few.deltas.some((x) => x.kind !== "verdict" && x.beyond_noise)).toBe(true);
    expect(formatDiff(few)).not.toContain("no single delta can be beyond noise");
    expect(d.tests).toEqual({ verdict: 8, blocker_key: 8 });
    // Over 5 items the first step is 0.01: the same decisive flips are beyond noise, the blocker keys' own tests leaving the items' family alone.
    const five = diffSnapshots(snapshot(BASE), snapshot(changedItems()));
    expect(
      five.deltas
        .filter((x) => x.kind === "verdict" && x.beyond_noise)
        .map((x) => x.item)
        .sort(),
    ).toEqual(["boundary/clean-a", "boundary/seeded-a", "corpus/goal-a"]);
  });

  it("against a pooled 25-trial baseline, a decisive flip with nothing recorded to explain it is unexplained", () => {
    const d = diffSnapshots(baseline, snapshot(changedItems()));
    expect(d.power.smallest_p).toBeCloseTo(1 / 142506, 12);
    const flips = d.deltas.filter((x) => x.kind === "verdict");
    expect(flips.map((x) => x.item).sort()).toEqual(["boundary/clean-a", "boundary/seeded-a", "corpus/goal-a"]);
    for (const x of flips) expect(x).toMatchObject({ attribution: "unexplained", beyond_noise: true, p_value: expect.closeTo(1 / 142506, 12) });
    expect(d.unexplained.length).toBe(d.deltas.filter((x) => x.beyond_noise).length);
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
    it(`a real change with only the ${label} recorded as changed is attributed to it, by name`, () => {
      const d = diffSnapshots(baseline, snapshot(changedItems(), patch));
      expect(d.differences.map((x) => x.part)).toEqual(["run seed", part]);
      expect(d.compatible).toBe(false);
      const beyond = d.deltas.filter((x) => x.beyond_noise);
      expect(beyond.length).toBeGreaterThanOrEqual(3);
      expect(d.unexplained).toEqual([]);
      for (const delta of beyond) {
        expect(delta.attribution).toBe("cause");
        expect(delta.causes.map((c) => c.kind)).toEqual([kind]);
      }
    });
  }

  it("a provider that starts answering the same requested model with another one: the deltas are the reported model's, by name", () => {
    // Nothing in the requests changed; every answer of the candidate's critic says it came from a new snapshot.
    const answeredBy = (model: string) => (t: TrialRecord) => void (t.calls = [{ ...call({ role: "critic" }), reported: { model, system_fingerprint: null } }]);
    const before = makeSnapshot([BASE, BASE, BASE, BASE, BASE], FIXTURES, undefined, answeredBy("sim-critic-2026-01"));
    const after = makeSnapshot(changedItems(), FIXTURES, undefined, answeredBy("sim-critic-2026-06"));
    expect(before.reported_models).toEqual({ critic: ["sim-critic-2026-01"] });
    const d = diffSnapshots(before, after);
    expect(d.differences.map((x) => [x.kind, x.part, x.baseline, x.candidate])).toEqual([
      ["seed", "run seed", [0, 1, 2, 3, 4], 0],
      ["model", "critic.reported_model", ["sim-critic-2026-01"], ["sim-critic-2026-06"]],
    ]);
    const beyond = d.deltas.filter((x) => x.beyond_noise);
    expect(beyond.length).toBeGreaterThanOrEqual(3);
    expect(d.unexplained).toEqual([]);
    for (const delta of beyond) expect(delta.causes.map((c) => c.part)).toEqual(["critic.reported_model"]);
    // The same change with the model the baseline already reported, or with no reported model on record (a baseline published before they were), is no difference.
    expect(diffSnapshots(before, makeSnapshot(changedItems(), FIXTURES, undefined, answeredBy("sim-critic-2026-01"))).unexplained.length).toBeGreaterThan(0);
    expect(configDifferences({ ...before, reported_models: {} }, after).map((x) => x.part)).toEqual(["run seed"]);
  });

  it("a configuration difference with no real change yields no cause deltas (the noise stays noise)", () => {
    // The baseline's items split 3/2 run after run; the candidate, with another critic model, splits the same way.
    const split: ItemSpec[] = BASE.map((s) => ({
      ...s,
      verdicts: s.suite === "boundary" ? ["block", "block", "block", "pass", "pass"] : ["approved", "approved", "approved", "escalated", "escalated"],
    }));
    const flipped: ItemSpec[] = split.map((s) => ({
      ...s,
      verdicts: [...s.verdicts].reverse().map((v, i) => (i === 2 ? (s.suite === "boundary" ? "pass" : "escalated") : v)),
    }));
    const d = diffSnapshots(
      pooled(split),
      snapshot(flipped, (m) => void (m.roles.critic.model = "other-critic")),
    );
    expect(d.differences.map((x) => x.part)).toContain("critic.model");
    expect(d.deltas.filter((x) => x.kind === "verdict").length).toBeGreaterThan(0);
    expect(d.counts.cause).toBe(0);
    expect(d.deltas.every((x) => x.attribution === "noise")).toBe(true);
  });

  it("a planner-only change explains corpus deltas beyond noise but not critic-only (boundary) ones", () => {
    const d = diffSnapshots(
      baseline,
      snapshot(changedItems(), (m) => void (m.roles.planner.temperature = 0.9)),
    );
    for (const delta of d.deltas.filter((x) => x.beyond_noise)) {
      expect(delta.attribution).toBe(delta.item.startsWith("corpus/") ? "cause" : "unexplained");
    }
  });

  it("changing only one corpus item's hash attributes its deltas to that item and nothing else", () => {
    const items = BASE.map((s) => (s.id === "seeded-b" ? { ...s, hash: "hash-seeded-b-v2", verdicts: all("pass"), keys: all("").map(() => []) } : s));
    const d = diffSnapshots(
      baseline,
      snapshot(items, (m) => void (m.corpus.hash = "corpus-hash-v2")),
    );
    expect(d.coverage.changed).toEqual(["boundary/seeded-b"]);
    expect(d.deltas.map((x) => [x.item, x.kind, x.attribution])).toEqual([
      ["boundary/seeded-b", "verdict", "cause"],
      ["boundary/seeded-b", "blocker_lost", "cause"],
    ]);
    for (const delta of d.deltas) expect(delta.causes.map((c) => c.kind)).toEqual(["corpus_item"]);
  });

  it("an item hash change does not explain a delta on another item", () => {
    const items = changedItems().map((s) => (s.id === "seeded-b" ? { ...s, hash: "hash-seeded-b-v2" } : s));
    const d = diffSnapshots(baseline, snapshot(items));
    expect(d.unexplained.length).toBe(d.deltas.filter((x) => x.beyond_noise).length);
    expect(d.unexplained.length).toBeGreaterThan(0);
  });

  it("an item with no counted baseline trial has nothing to compare: no test can reject, so no delta is beyond noise", () => {
    const base = pooled([{ suite: "boundary", id: "seeded-a", verdicts: all("unavailable") }]);
    const cand = snapshot([{ suite: "boundary", id: "seeded-a", verdicts: all("block") }]);
    const verdict = diffSnapshots(base, cand).deltas.find((x) => x.kind === "verdict")!;
    expect(verdict).toMatchObject({ baseline: null, candidate: "block", p_value: 1, attribution: "noise" });
  });

  it("an outage or an unavailable critic on an item is not a blocker key it lost: keys are tested over the counted trials, as verdicts are", () => {
    // Unchanged behaviour, but one goal's trials all errored and one fixture's critic was unavailable throughout.
    const cand = snapshot(
      BASE.map((s) => (s.id === "goal-b" ? { ...s, verdicts: all("error") } : s.id === "seeded-a" ? { ...s, verdicts: all("unavailable") } : s)),
      (m) => void (m.config.seed = 99),
    );
    const d = diffSnapshots(baseline, cand);
    const onThem = d.deltas.filter((x) => x.item === "corpus/goal-b" || x.item === "boundary/seeded-a");
    expect(baseline.items.find((i) => i.item_id === "seeded-a")!.blocker_key_counts).not.toEqual({});
    expect(onThem.filter((x) => x.kind !== "verdict").length).toBeGreaterThan(0);
    expect(onThem.every((x) => x.p_value === 1 && x.attribution === "noise")).toBe(true);
    expect(d.unexplained).toEqual([]);
  });

  it("Holm corrects the verdict tests over the items (docs/design.md §11) and the blocker-key tests over the keys, two families", () => {
    const d = diffSnapshots(baseline, snapshot(changedItems()));
    const keys = new Set(
      [...baseline.items, ...snapshot(changedItems()).items].flatMap((i) => Object.keys(i.blocker_key_counts).map((k) => `${i.item_id} ${k}`)),
    );
    expect(keys.size).toBeGreaterThan(0);
    expect(d.tests).toEqual({ verdict: BASE.length, blocker_key: keys.size });
    expect(d.power.holm_first_step).toBeCloseTo(0.05 / BASE.length, 12);
    // Each delta's Holm p is its family's: the smallest p of a family is multiplied by that family's size alone.
    for (const [family, size] of [
      [(x: Delta) => x.kind === "verdict", BASE.length],
      [(x: Delta) => x.kind !== "verdict", keys.size],
    ] as const) {
      const members = d.deltas.filter(family);
      const first = members.reduce((a, b) => (b.p_value < a.p_value ? b : a));
      expect(first.p_holm).toBeCloseTo(Math.min(1, first.p_value * size), 12);
    }
  });
});

describe("causes in scope", () => {
  it("never name a difference that is not a cause (the seed, the trial count), so no caller filters them again", () => {
    const differences = [
      { kind: "seed" as const, part: "run seed", role: null, baseline: 0, candidate: 7 },
      { kind: "trials" as const, part: "trials per item", role: null, baseline: 5, candidate: 10 },
      { kind: "model" as const, part: "critic.model", role: "critic", baseline: "a", candidate: "b" },
    ];
    expect(causesForItem(differences, "boundary", "h1", "h1").map((d) => d.part)).toEqual(["critic.model"]);
    expect(causesForItem(differences, "boundary", "h1", "h2").map((d) => d.part)).toEqual(["critic.model", "item_hash"]);
  });
});
