// Default sim sweeps at chosen seeds, run in this process and kept on disk: the machinery the
// benchmarks that measure error rates over independent seeds share (bench-gate-calibration,
// bench-drift, bench-compare). A sweep already completed under the work folder is reused.
import { createWriteStream, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { snapshotOfRun } from "../harness/baseline/io.ts";
import type { Snapshot } from "../src/formats/snapshot.ts";
import { realHost } from "../harness/cli/host.ts";
import { loadConfigFile } from "../harness/config.ts";
import { readManifest } from "../harness/run/manifest.ts";
import { RunCliSchema } from "../harness/run/settings.ts";
import { runSweep, type SweepHost } from "../harness/run/sweep.ts";
import { realEngine } from "../harness/assembly.ts";
import { clopperPearson } from "../src/stats/proportion.ts";

/** k of n as a rate with its exact (Clopper–Pearson) 95% interval, for the benchmarks' tables. */
export function pct(k: number, n: number): string {
  const ci = clopperPearson(k, n);
  return `${k}/${n} = ${(k / n).toFixed(3)} [${ci.low.toFixed(3)}, ${ci.high.toFixed(3)}]`;
}

/** n consecutive seeds from base. */
export const range = (base: number, n: number) => Array.from({ length: n }, (_, i) => base + i);

/** A shipped sim profile's file, by name (high-miss, double-miss, ...). */
export const simProfile = (name: string) => resolve(`src/sim/profiles/${name}.yaml`);

interface SimSweeps {
  work: string;
  /** The default sweep (every corpus goal and boundary fixture, 5 trials) at `seed`, as a snapshot. */
  sweep(name: string, seed: number, profile?: string): Promise<Snapshot>;
  /** One sweep per seed, with progress on stderr. */
  series(label: string, seeds: readonly number[], profile?: string): Promise<Snapshot[]>;
}

/** Sweeps under `work` (default: a fresh temp folder), reusing the completed ones already there. */
export function simSweeps(work?: string): SimSweeps {
  const dir = work ? resolve(work) : mkdtempSync(join(tmpdir(), "ft-sweeps-"));
  const quiet = createWriteStream("/dev/null") as unknown as NodeJS.WriteStream;
  const host: SweepHost = { ...realHost(["run"]), stdout: quiet, stderr: quiet, env: { CI: "1" } };
  const config = loadConfigFile("fieldtest.config.yaml");
  async function sweep(name: string, seed: number, profile?: string): Promise<Snapshot> {
    const out = join(dir, name);
    const done = existsSync(join(out, "manifest.json")) && readManifest(out).state === "completed";
    if (!done) {
      const cli = RunCliSchema.parse({ seed: String(seed), out, force: true, ...(profile ? { simProfile: profile } : {}) });
      const code = await runSweep(cli, config, { ...realEngine(process.env), writeReport: undefined }, host);
      if (code !== 0) throw new Error(`${name}: fieldtest run exited ${code}`);
    }
    return snapshotOfRun(out, "corpus");
  }
  async function series(label: string, seeds: readonly number[], profile?: string): Promise<Snapshot[]> {
    const out: Snapshot[] = [];
    const started = performance.now();
    for (const seed of seeds) {
      out.push(await sweep(`${label}-${seed}`, seed, profile));
      process.stderr.write(`\r${label}: ${out.length}/${seeds.length} sweeps (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
    process.stderr.write("\n");
    return out;
  }
  return { work: dir, sweep, series };
}
