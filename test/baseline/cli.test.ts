import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readManifest } from "../../harness/run/manifest.ts";
import { compareSnapshots } from "../../harness/baseline/compare.ts";
import { diffSnapshots } from "../../harness/baseline/diff.ts";
import { readSnapshot, snapshotOfRun, snapshotOfRuns } from "../../harness/baseline/io.ts";
import { trend } from "../../harness/baseline/trend.ts";
import { SNAPSHOT_SCHEMA_VERSION } from "../../src/formats/snapshot.ts";
import { formatComparison } from "../../harness/cli/commands/compare.ts";
import { formatDiff } from "../../harness/cli/commands/diff.ts";
import { formatTrend } from "../../harness/cli/commands/trend.ts";
import { makeFixture, writeCorpus, writeRunDir, type ItemSpec } from "./builders.ts";
import { runFieldtest } from "../helpers/cli.ts";
import type { Manifest } from "../../src/formats/manifest.ts";

const SEEDED = Array.from({ length: 8 }, (_, i) => `seeded-${i}`);
const CLEAN = Array.from({ length: 4 }, (_, i) => `clean-${i}`);

function specs(n: number, misses: number): ItemSpec[] {
  return [
    ...SEEDED.map((id, i) => ({
      suite: "boundary" as const,
      id,
      verdicts: Array.from({ length: n }, (_, t) => (t < (i % 2 ? misses : 0) ? "pass" : "block")),
    })),
    ...CLEAN.map((id) => ({ suite: "boundary" as const, id, verdicts: Array<string>(n).fill("pass") })),
  ];
}

let root: string;
let hashes: Record<string, string>;
const corpus = () => join(root, "corpus");

const fieldtest = (...args: string[]) => runFieldtest([...args, "--corpus", corpus()]);

function runDir(name: string, items: ItemSpec[], patch?: (m: Manifest) => void): string {
  const dir = join(root, name);
  writeRunDir(dir, items, hashes, patch);
  return dir;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "fieldtest-cli-"));
  hashes = writeCorpus(corpus(), [...SEEDED.map((id) => makeFixture(id, true)), ...CLEAN.map((id) => makeFixture(id, false))], []);
  writeFileSync(
    join(root, "policy.yaml"),
    [
      "version: 1",
      "min_trials_per_item: 3",
      "floors:",
      "  - { metric: critic_unavailable_rate, max: 0.1 }",
      "non_inferiority:",
      "  - { metric: critic_miss_rate, margin: 0.1 }",
      "  - { metric: label_flip_rate, margin: 0.2 }",
      "",
    ].join("\n"),
  );
  const seeded = (seed: number) => (m: Manifest) => void ((m.run_id = `base-${seed}`), (m.config.seed = seed));
  const dirs = [1, 2, 3].map((seed) => runDir(`base-${seed}`, specs(5, 1), seeded(seed)));
  const published = await fieldtest("baseline", "publish", ...dirs, "--out", join(root, "baselines", "base.json"));
  expect(published.stdout).toContain("3 run(s) (seeds 1, 2, 3), 12 items, 180 trials");
  expect(published.code).toBe(0);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("fieldtest baseline, diff and gate (CLI)", () => {
  it("publishes a schema-valid baseline pooling the runs, with each metric's between-run mean and SD", () => {
    const b = JSON.parse(readFileSync(join(root, "baselines", "base.json"), "utf8"));
    expect(b).toMatchObject({
      schema_version: SNAPSHOT_SCHEMA_VERSION,
      kind: "fieldtest-snapshot",
      name: "base",
      trials_per_run: 5,
      trials_per_item: 15,
      canary_passed: true,
    });
    expect(b.runs.map((r: { run_id: string; seed: number }) => [r.run_id, r.seed])).toEqual([
      ["base-1", 1],
      ["base-2", 2],
      ["base-3", 3],
    ]);
    expect(b.decision_context.critic).toMatchObject({ provider: "sim", model: "sim-critic", temperature: 0.2, system_prompt_sha256: "sys" });
    expect(b.items).toHaveLength(12);
    expect(b.between_runs.critic_miss_rate).toMatchObject({ n: 3, mean: expect.closeTo(0.1, 12), sd: 0, values: [0.1, 0.1, 0.1] });
  });

  it("trend rejects an unknown --metrics name as bad input (exit 2), even with --fail-on-alert, instead of charting nothing", async () => {
    const r = await fieldtest(
      "trend",
      join(root, "base-1"),
      join(root, "base-2"),
      "--baseline",
      join(root, "baselines", "base.json"),
      "--metrics",
      "critic_miss_rate,critic_mis_rate",
      "--fail-on-alert",
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('fieldtest: command line: --metrics: unknown metric "critic_mis_rate": not in any run or the baseline');
    expect(r.stdout).toBe("");
  });

  it("refuses to pool runs of different configurations or a repeated run, naming the run and the part (exit 2)", async () => {
    const other = runDir("other-temp", specs(5, 1), (m) => void ((m.run_id = "o"), (m.config.seed = 9), (m.roles.critic.temperature = 0.7)));
    const r = await fieldtest("baseline", "publish", join(root, "base-1"), other, "--out", join(root, "baselines", "mixed.json"));
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `fieldtest: ${other}/manifest.json: critic.temperature: is 0.7 but 0.2 in the first run: a baseline pools runs of one configuration`,
    );
    expect(existsSync(join(root, "baselines", "mixed.json"))).toBe(false);
    expect(() => snapshotOfRuns([join(root, "base-1"), join(root, "base-1")], corpus(), "twice")).toThrow(
      `${join(root, "base-1")}/manifest.json: run_id: is given twice`,
    );
  });

  it("refuses a baseline of an older schema with the command that re-publishes it", () => {
    // 1: before pooled runs; 2: blocker keys counted over every trial that did not error.
    for (const version of [1, 2]) {
      writeFileSync(join(root, "old.json"), JSON.stringify({ schema_version: version, kind: "fieldtest-snapshot", name: "old", run_id: "x", items: [] }));
      expect(() => readSnapshot(join(root, "old.json"))).toThrow(
        "old.json:1: schema_version: this baseline was written by an older fieldtest (an older snapshot schema); re-publish it from its runs with `fieldtest baseline publish` (for baselines/sim-default.json: scripts/publish-baseline.sh)",
      );
    }
  });

  it("refuses items a snapshot can never hold: an unknown verdict, an unknown label, an item listed twice", () => {
    const good = JSON.parse(readFileSync(join(root, "baselines", "base.json"), "utf8")) as { items: Record<string, unknown>[] };
    const broken = (name: string, edit: (items: Record<string, unknown>[]) => void) => {
      const copy = structuredClone(good);
      edit(copy.items);
      writeFileSync(join(root, name), JSON.stringify(copy, null, 2));
      return () => readSnapshot(join(root, name));
    };
    expect(broken("maybe.json", (items) => void (items[0]!.modal_verdict = "maybe"))).toThrow(
      /maybe\.json:\d+: items\[0\]\.modal_verdict: a counted verdict is one of block, pass, escalated, approved$/,
    );
    expect(broken("label.json", (items) => void (items[0]!.verdict_counts = { frob: 3 }))).toThrow(/label\.json:\d+: items\[0\]\.verdict_counts\.frob: /);
    expect(broken("twice.json", (items) => void items.push(items[0]!))).toThrow(
      new RegExp(`twice\\.json:\\d+: items\\[${good.items.length}\\]\\.item_id: .* is listed twice$`),
    );
  });

  it("refuses a run whose manifest's start is not a date: runs are ordered and reported by it", () => {
    const copy = join(root, "bad-start");
    cpSync(join(root, "base-1"), copy, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(copy, "manifest.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(copy, "manifest.json"), JSON.stringify({ ...manifest, started_at: "yesterday" }, null, 2));
    expect(() => readManifest(copy)).toThrow(/bad-start\/manifest\.json:\d+: started_at: expected a date and time \(ISO 8601/);
  });

  it("names a newer schema as newer, and a schema number that is no number as such", () => {
    writeFileSync(join(root, "new.json"), JSON.stringify({ schema_version: SNAPSHOT_SCHEMA_VERSION + 1, kind: "fieldtest-snapshot" }));
    expect(() => readSnapshot(join(root, "new.json"))).toThrow(
      `new.json:1: schema_version: this baseline was written by a newer fieldtest (snapshot schema ${SNAPSHOT_SCHEMA_VERSION + 1}; this one reads ${SNAPSHOT_SCHEMA_VERSION}): update fieldtest to read it`,
    );
    writeFileSync(join(root, "text.json"), JSON.stringify({ schema_version: String(SNAPSHOT_SCHEMA_VERSION), kind: "fieldtest-snapshot" }));
    expect(() => readSnapshot(join(root, "text.json"))).toThrow(
      `text.json:1: schema_version: expected the snapshot schema number ${SNAPSHOT_SCHEMA_VERSION}, got "${SNAPSHOT_SCHEMA_VERSION}"`,
    );
  });

  it("diff --json attributes a decisive change to a temperature change and exits 0, naming the seed as a non-cause", async () => {
    // Every seeded fixture now passes every trial: 0/5 against 15/0 in the pooled baseline, beyond noise.
    const worse = specs(5, 1).map((s) => (s.id.startsWith("seeded") ? { ...s, verdicts: Array<string>(5).fill("pass") } : s));
    const withCause = await fieldtest(
      "diff",
      runDir("temp", worse, (m) => void (m.roles.critic.temperature = 1)),
      "--baseline",
      join(root, "baselines", "base.json"),
      "--json",
    );
    expect(withCause.code).toBe(0);
    const d = JSON.parse(withCause.stdout);
    expect(d.deltas.filter((x: { beyond_noise: boolean }) => x.beyond_noise).length).toBeGreaterThan(0);
    expect(d.unexplained).toEqual([]);
    expect(d.differences.map((x: { part: string }) => x.part)).toEqual(["run seed", "critic.temperature"]);
    const text = formatDiff(diffSnapshots(readSnapshot(join(root, "baselines", "base.json")), snapshotOfRun(join(root, "temp"), corpus())));
    expect(text).toContain("run seed: [1,2,3] -> 0 (not a cause: the same behaviour, sampled again or more often)");
    expect(text).toContain("critic.temperature: 0.2 -> 1\n");
    // "changed" would read as "changed verdicts": it counts items whose content (item hash) differs.
    expect(text).toMatch(/\nitems: \d+ compared \(0 whose content changed\), 0 only in baseline, 0 only in candidate\n/);
    expect(text).toMatch(
      /per-item test: Fisher exact, two-sided, Holm at α 0.05 over the \d+ items' verdict tests and, apart, the \d+ blocker keys' tests; .*\(Holm's first step [\d.e-]+, keys [\d.e-]+\)\n/,
    );
  });

  it("a file where a run folder goes, a run's manifest where a baseline goes and a folder where a file goes are each named for what they are (exit 2)", async () => {
    const dir = runDir("misplaced", specs(5, 1));
    const manifest = join(dir, "manifest.json");
    const lines = async (...args: string[]) => {
      const r = await fieldtest(...args);
      expect(r.code).toBe(2);
      return r.stderr.trimEnd().split("\n");
    };
    expect(await lines("trend", dir, manifest)).toEqual([
      `fieldtest: ${manifest}:1: kind: not a baseline (a file written by \`fieldtest baseline publish\`, kind "fieldtest-snapshot"; this one has no kind): give a baseline file, or a run folder where a run may go`,
    ]);
    expect(await lines("baseline", "publish", manifest, "--out", join(root, "x.json"))).toEqual([
      `fieldtest: ${manifest}: is a file, not a run folder: give the folder that holds it`,
    ]);
    expect(await lines("trend", dir, "--baseline", dir)).toEqual([`fieldtest: ${dir}: is a folder, not a file`]);
  });

  it("gate exits 0 on an unchanged run, 1 naming the metric on a raised under-claim rate, 2 on one trial", async () => {
    const policy = ["--baseline", join(root, "baselines", "base.json"), "--policy", join(root, "policy.yaml")];
    const same = await fieldtest("gate", runDir("same", specs(5, 1)), ...policy);
    expect([same.code, same.stdout.trim().split("\n").at(-1)]).toEqual([0, "gate: pass"]);
    expect(existsSync(join(root, "same", "gate-junit.xml"))).toBe(true);
    const raised = await fieldtest(
      "gate",
      runDir("raised", specs(5, 4), (m) => void (m.roles.critic.model = "worse")),
      ...policy,
    );
    expect(raised.code).toBe(1);
    expect(raised.stdout).toContain("gate: regression in critic_miss_rate");
    const one = await fieldtest("gate", runDir("one", specs(1, 0)), ...policy);
    expect(one.code).toBe(2);
    expect(one.stdout).toMatch(/\ngate: inconclusive in trials_per_item(, [a-z_.:]+)*( and \d+ more)?: needs at least 3 trials per item\n/);
  });

  it.each([
    ["bad-policy.yaml", "version: 1\nfloors:\n  - { metric: x, max: 1, onn: value }\n", 'bad-policy.yaml:3: floors[0].onn: unknown key "onn"'],
    // A margin whose direction contradicts the metric's own.
    [
      "upside-down.yaml",
      "version: 1\nnon_inferiority:\n  - { metric: label_flip_rate, margin: 0.2 }\n  - { metric: critic_miss_rate, margin: 0.1, direction: higher_is_better }\n",
      'upside-down.yaml:4: non_inferiority[1].direction: "critic_miss_rate" is lower_is_better (src/metrics/catalogue.ts, METHODOLOGY.md §4.4), not higher_is_better',
    ],
  ])("bad input is one line naming the file and key path, exit 2 (%s)", async (file, text, line) => {
    writeFileSync(join(root, file), text);
    const r = await fieldtest("gate", join(root, "same"), "--baseline", join(root, "baselines", "base.json"), "--policy", join(root, file));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(line);
  });
});

describe("compare and trend text (the CLI's formatting, in process)", () => {
  const base = () => readSnapshot(join(root, "baselines", "base.json"));
  const run = (name: string) => snapshotOfRun(join(root, name), corpus());

  it("compare names what differs between A and B and lists the changed items; A against itself reads 0 excess", () => {
    const self = formatComparison(compareSnapshots(run("base-1"), run("base-1"), { reps: 200 }));
    expect(self).toContain("same configuration, corpus and gates");
    // The coverage line names the sides as compare does (B the reference, A the candidate).
    expect(self).toMatch(/^items: 12 compared \(0 whose content changed\), 0 only in B, 0 only in A$/m);
    expect(self).toContain("excess disagreement: 0 over 12 items (A and B are the same run");
    const swap = formatComparison(compareSnapshots(run("temp"), base(), { reps: 200 }));
    expect(swap).toContain("critic.temperature: 0.2 -> 1");
    expect(swap).toMatch(/changed items: 8 \(8 beyond noise/);
    expect(swap).toMatch(/boundary\/seeded-0: B block 15 -> A pass 5 \(p [^,]+, Holm [^,]+, beyond noise; causes: critic\.temperature\)/);
    // The delta is labelled for what it is: the mean per-item difference over the shared items, not the two values' difference.
    expect(swap).toContain("metric deltas (B -> A: each side's own value; Δ: mean per-item difference A − B over the shared items");
    // With no item in common there is nothing to pair, and the text says so instead of an empty list.
    const other = { ...run("temp"), items: [] };
    expect(formatComparison(compareSnapshots(other, base(), { reps: 200 }))).toContain(
      "metric deltas: none: A and B share no item with the same content (nothing to pair)",
    );
  });

  it("trend prints one line per alarming metric: what, since when, how far", () => {
    const night = (i: number, misses: number) => runDir(`night-${i}`, specs(5, misses), (m) => void ((m.run_id = `night-${i}`), (m.config.seed = 100 + i)));
    // A three-run reference whose critic misses 0, 1 and 2 of 5 trials on half the seeded fixtures, then four such nights.
    const reference = snapshotOfRuns([night(1, 0), night(2, 1), night(3, 2)], corpus(), "ref");
    const history = [1, 0, 1, 2].map((misses, i) => run(basename(night(4 + i, misses))));
    const everyMiss = SEEDED.map((id) => ({ suite: "boundary" as const, id, verdicts: Array<string>(5).fill("pass") }));
    const broken = runDir("night-8", [...everyMiss, ...specs(5, 0).slice(SEEDED.length)], (m) => void ((m.run_id = "night-8"), (m.config.seed = 108)));
    const text = formatTrend(trend([...history, run(basename(broken))], reference));
    const alarm = text.split("\n").find((l) => l.startsWith("ALERT critic_miss_rate "));
    // About 4 misses per run: a rate with few events, described (and tested) by its counts.
    // The reference is the baseline's three runs alone, whatever came after them.
    expect(alarm).toMatch(
      /^ALERT critic_miss_rate \[exploratory\] \(worse up\): since run 5:night-8, first alarm run 5:night-8; 1 vs reference 0\.1 \(12 events in 120 units over 3 runs; exact count test\); charts shift/,
    );
    expect(alarm).toContain("alarming on the last run");
  });
});
