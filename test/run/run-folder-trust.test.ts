import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RUN_FILES } from "../../harness/run/store.ts";
import { makeFixture, writeCorpus, writeRunDir, type ItemSpec } from "../baseline/builders.ts";
import { runFieldtest } from "../helpers/cli.ts";

/** What a run folder trusts: its files are what they say, regular files of its own (docs/reference/run-folder-trust.md). */

const ITEMS: ItemSpec[] = [
  { suite: "boundary", id: "seeded-0", verdicts: ["block", "block", "pass"] },
  { suite: "boundary", id: "clean-0", verdicts: ["pass", "pass", "pass"] },
];

let root: string;
let corpus: string;
let baseline: string;
let policy: string;
let pristine: string;
/** A second run of the same items (another seed), for the commands that take two. */
let other: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "ft-trust-"));
  corpus = join(root, "corpus");
  const hashes = writeCorpus(corpus, [makeFixture("seeded-0", true), makeFixture("clean-0", false)], []);
  pristine = join(root, "pristine");
  writeRunDir(pristine, ITEMS, hashes);
  writeFileSync(join(pristine, RUN_FILES.spend), "");
  other = join(root, "other");
  writeRunDir(other, ITEMS, hashes, (m) => void ((m.run_id = "run-2"), (m.config.seed = 1)));
  policy = join(root, "policy.yaml");
  writeFileSync(policy, ["version: 1", "min_trials_per_item: 3", "floors:", "  - { metric: critic_unavailable_rate, max: 0.1 }", ""].join("\n"));
  baseline = join(root, "base.json");
  const published = await runFieldtest(["baseline", "publish", pristine, "--out", baseline, "--corpus", corpus]);
  expect(published.code, published.stderr).toBe(0);
});

/** Every command that reads or writes a run folder, on `dir` (with `other`, a second run, where it takes two). */
function commands(dir: string, out: string): string[][] {
  return [
    ["report", dir],
    ["gate", dir, "--baseline", baseline, "--policy", policy],
    ["diff", dir, "--baseline", baseline],
    ["compare", dir, other],
    ["trend", other, dir],
    ["research", dir, other, "--out", join(out, "research")],
    ["merge", dir, "--out", join(out, "merged")],
    ["baseline", "publish", dir, "--out", join(out, "b.json")],
    ["run", "--resume", dir],
  ].map((args) => (args[0] === "run" || args[0] === "merge" ? args : [...args, "--corpus", corpus]));
}

/** A copy of the clean run, with `name` replaced by what `plant` puts there. */
function runWith(name: string, plant: (path: string) => void): string {
  const dir = mkdtempSync(join(root, "run-"));
  cpSync(pristine, dir, { recursive: true });
  rmSync(join(dir, name), { force: true });
  plant(join(dir, name));
  return dir;
}

/** What lies outside the run folders: its names, sizes and times, to see that a refused command touched none of it. */
function outside(victim: string): string {
  return JSON.stringify([readdirSync(root).sort(), statSync(victim).size, statSync(victim).mtimeMs]);
}

const WRITTEN = [RUN_FILES.trials, RUN_FILES.spend, RUN_FILES.manifest, RUN_FILES.summary, RUN_FILES.reportMd, RUN_FILES.reportHtml, RUN_FILES.csv, RUN_FILES.lock, RUN_FILES.junit];

describe("a run folder whose files are links or special files", () => {
  it("works when every file is its own (the control: nothing below is refused for another reason)", async () => {
    for (const args of commands(pristine, join(root, "out-control"))) {
      const r = await runFieldtest(args);
      expect(r.stderr, args.join(" ")).not.toMatch(/symbolic link|not a regular file/);
      // --resume refuses the hand-built run for its config hash; everything else runs.
      if (args[0] !== "run") expect(r.code, `${args.join(" ")}: ${r.stderr}`).not.toBe(2);
    }
    rmSync(join(root, "out-control"), { recursive: true, force: true });
    rmSync(join(pristine, RUN_FILES.junit), { force: true });
    for (const f of [RUN_FILES.summary, RUN_FILES.reportMd, RUN_FILES.reportHtml, RUN_FILES.csv]) rmSync(join(pristine, f), { force: true });
  });

  it.each(WRITTEN)("%s as a link to a file outside: every command refuses the run (exit 2 naming it) and the file outside is untouched", async (name) => {
    const victim = join(root, `victim-${name}`);
    writeFileSync(victim, "outside the run folder\n");
    const dir = runWith(name, (path) => symlinkSync(victim, path));
    const before = outside(victim);
    for (const args of commands(dir, join(root, "out-refused"))) {
      const r = await runFieldtest(args);
      expect([r.code, r.stderr], args.join(" ")).toEqual([2, `fieldtest: ${join(dir, name)}: is a symbolic link, which fieldtest does not follow here: put the file itself in its place\n`]);
    }
    expect(outside(victim)).toBe(before);
  }, 20_000);

  it.each([RUN_FILES.trials, RUN_FILES.spend, RUN_FILES.manifest])("%s as a FIFO or a link to /dev/zero: refused at once, never read", async (name) => {
    for (const [plant, why] of [
      [(path: string) => execFileSync("mkfifo", [path]), "is a FIFO, not a regular file"],
      [(path: string) => symlinkSync("/dev/zero", path), "is a symbolic link, which fieldtest does not follow here: put the file itself in its place"],
    ] as const) {
      const dir = runWith(name, plant);
      for (const args of commands(dir, join(root, "out-special"))) {
        const r = await runFieldtest(args);
        expect([r.code, r.stderr], args.join(" ")).toEqual([2, `fieldtest: ${join(dir, name)}: ${why}\n`]);
      }
      expect(existsSync(join(root, "out-special"))).toBe(false);
    }
  }, 20_000);
});
