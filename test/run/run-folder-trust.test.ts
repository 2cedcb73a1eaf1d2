import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RUN_FILES } from "../../harness/run/store.ts";
import { runFieldtest } from "../helpers/cli.ts";
import { handBuiltRuns, runReaders, type HandBuiltRuns } from "../helpers/hand-built-runs.ts";

/** What a run folder trusts: its files are what they say, regular files of its own (docs/reference/run-folder-trust.md). */

let h: HandBuiltRuns;
beforeAll(async () => {
  h = await handBuiltRuns("ft-trust-");
});

/** A copy of the run, with `name` replaced by what `plant` puts there. */
function runWith(name: string, plant: (path: string) => void): string {
  const dir = mkdtempSync(join(h.root, "run-"));
  cpSync(h.run, dir, { recursive: true });
  rmSync(join(dir, name), { force: true });
  plant(join(dir, name));
  return dir;
}

/** What lies outside the run folders: its names, sizes and times, to see that a refused command touched none of it. */
function outside(victim: string): string {
  return JSON.stringify([readdirSync(h.root).sort(), statSync(victim).size, statSync(victim).mtimeMs]);
}

const WRITTEN = [
  RUN_FILES.trials,
  RUN_FILES.spend,
  RUN_FILES.manifest,
  RUN_FILES.summary,
  RUN_FILES.reportMd,
  RUN_FILES.reportHtml,
  RUN_FILES.csv,
  RUN_FILES.lock,
  RUN_FILES.junit,
];

describe("a run folder whose files are links or special files", () => {
  it("works when every file is its own (the control: nothing below is refused for another reason)", async () => {
    const dir = runWith("none", () => {});
    for (const args of runReaders(h, dir, join(h.root, "out-control"), { resume: true })) {
      const r = await runFieldtest(args);
      expect(r.stderr, args.join(" ")).not.toMatch(/symbolic link|not a regular file/);
      // --resume refuses the hand-built run for its config hash; everything else runs.
      if (args[0] !== "run") expect(r.code, `${args.join(" ")}: ${r.stderr}`).not.toBe(2);
    }
  });

  it.each(WRITTEN)(
    "%s as a link to a file outside: every command refuses the run (exit 2 naming it) and the file outside is untouched",
    async (name) => {
      const victim = join(h.root, `victim-${name}`);
      writeFileSync(victim, "outside the run folder\n");
      const dir = runWith(name, (path) => symlinkSync(victim, path));
      const before = outside(victim);
      for (const args of runReaders(h, dir, join(h.root, "out-refused"), { resume: true })) {
        const r = await runFieldtest(args);
        expect([r.code, r.stderr], args.join(" ")).toEqual([
          2,
          `fieldtest: ${join(dir, name)}: is a symbolic link, which fieldtest does not follow here: put the file itself in its place\n`,
        ]);
      }
      expect(outside(victim)).toBe(before);
    },
    20_000,
  );

  it.each([RUN_FILES.trials, RUN_FILES.spend, RUN_FILES.manifest])(
    "%s as a FIFO or a link to /dev/zero: refused at once, never read",
    async (name) => {
      for (const [plant, why] of [
        [(path: string) => execFileSync("mkfifo", [path]), "is a FIFO, not a regular file"],
        [(path: string) => symlinkSync("/dev/zero", path), "is a symbolic link, which fieldtest does not follow here: put the file itself in its place"],
      ] as const) {
        const dir = runWith(name, plant);
        for (const args of runReaders(h, dir, join(h.root, "out-special"), { resume: true })) {
          const r = await runFieldtest(args);
          expect([r.code, r.stderr], args.join(" ")).toEqual([2, `fieldtest: ${join(dir, name)}: ${why}\n`]);
        }
        expect(existsSync(join(h.root, "out-special"))).toBe(false);
      }
    },
    20_000,
  );

  it("an imported run's goals are its files too: a link or a FIFO among them refuses the run", async () => {
    for (const [plant, why] of [
      [(path: string) => execFileSync("mkfifo", [path]), "is a FIFO, not a regular file"],
      [(path: string) => symlinkSync("/dev/zero", path), "is a symbolic link, which fieldtest does not follow here: put the file itself in its place"],
    ] as const) {
      const dir = runWith("goals", (path) => mkdirSync(join(path, "database"), { recursive: true }));
      const goal = join(dir, "goals", "database", "db-01.json");
      plant(goal);
      for (const args of runReaders(h, dir, join(h.root, "out-goals"))) {
        const r = await runFieldtest(args);
        expect([r.code, r.stderr], args.join(" ")).toEqual([2, `fieldtest: ${goal}: ${why}\n`]);
      }
    }
  }, 20_000);
});
