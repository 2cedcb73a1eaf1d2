import { join } from "node:path";
import { z } from "zod";
import { InputError, loadFile } from "../../src/formats/load.ts";
import { environmentKeys } from "../../src/providers/credentials.ts";
import { registerSecret } from "../../src/secrets.ts";
import type { SummaryFile } from "../../src/formats/summary.ts";
import { readSummary, realEngine } from "../assembly.ts";
import { readSnapshot } from "../baseline/io.ts";
import { GatePolicySchema } from "../baseline/policy.ts";
import { realHost } from "../cli/host.ts";
import { printingStream } from "../cli/printing.ts";
import { loadConfigFile } from "../config.ts";
import { PACKAGED_CORPUS, PACKAGED_POLICY } from "../package.ts";
import { recordedDecisionInput } from "../report/decision.ts";
import { readManifest } from "../run/manifest.ts";
import { SweepOptionsSchema, type RunCli } from "../run/settings.ts";
import { RUN_FILES } from "../run/store.ts";
import { runSweep as sweep, type SweepHost } from "../run/sweep.ts";
import { existsSync } from "node:fs";
import { parseApiOptions, PathSchema } from "./options.ts";

/** Where a sweep's options came from, for its one-line errors: the command line's flags, or the API's keys. */
interface OptionSource {
  source: string;
  name(key: keyof RunCli): string;
}

/**
 * A sweep as `fieldtest run` and the API's runSweep start it: the option combinations checked, the
 * release-gate decision its reports lead with read before any spend, the config file loaded.
 */
export async function startSweep(options: RunCli, corpus: string, host: SweepHost, from: OptionSource): Promise<number> {
  const warn = (line: string) => void host.stderr.write(`fieldtest: warning: ${line}\n`);
  if (options.retryErrors && options.resume === undefined) throw new InputError(from.source, from.name("retryErrors"), "needs --resume DIR");
  if (options.policy !== undefined && options.baseline === undefined) throw new InputError(from.source, from.name("policy"), "needs --baseline FILE");
  // A resume's reports keep the decision its run was started with, unless asked for another.
  const recorded = options.baseline === undefined && options.resume !== undefined ? recordedDecisionInput(readManifest(options.resume)) : null;
  let decision = options.baseline === undefined ? recorded : { baseline: options.baseline, policy: options.policy ?? PACKAGED_POLICY };
  // Read both before any spend: a bad baseline or policy is bad input now, not after the sweep.
  if (decision) {
    try {
      readSnapshot(decision.baseline);
      loadFile(decision.policy, GatePolicySchema);
    } catch (e) {
      // A recorded one that moved away is no reason to refuse the resume: its reports go without it, said so.
      if (decision !== recorded || !(e instanceof InputError)) throw e;
      warn(
        `the run's reports decided against ${recorded.baseline} with ${recorded.policy}, which cannot be read now (${e.message}): they are written without a decision`,
      );
      decision = null;
    }
  }
  const file = options.resume !== undefined && options.config === undefined ? {} : loadConfigFile(options.config);
  return sweep(options, file, realEngine(host.env, corpus, decision), host);
}

/** runSweep's options: `fieldtest run`'s flags as typed keys, and the corpus (default: the packaged one). */
export const RunSweepOptionsSchema = SweepOptionsSchema.extend({ corpus: PathSchema.default(PACKAGED_CORPUS) });
export type RunSweepOptions = z.input<typeof RunSweepOptionsSchema>;

/** What a sweep writes to, and the environment it reads its API keys from. */
export interface SweepIo {
  /** The sweep's summary tables (default: discarded). */
  stdout?: NodeJS.WritableStream;
  /** Progress, warnings and why a sweep stopped (default: this process's stderr). */
  stderr?: NodeJS.WritableStream;
  /** Default: process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface SweepResult {
  /** As `fieldtest run` exits: 0 done, 1 an item failed its expectation (failOnExpectations), 2 bad input, 3 stopped (budget, canary, outage), 130/143 a signal. */
  exitCode: number;
  /** The run folder; null for a dry run. */
  dir: string | null;
  /** summary.json of a completed run (a shard's is written by merge); null otherwise. */
  summary: SummaryFile | null;
}

const discard = { write: () => true, isTTY: false } as unknown as NodeJS.WritableStream;

/** A sweep: canaries, then the suites' trials through the engine, the run folder and its reports (as `fieldtest run`). */
export async function runSweep(options: RunSweepOptions = {}, io: SweepIo = {}): Promise<SweepResult> {
  const { corpus, ...sweepOptions } = parseApiOptions("runSweep", RunSweepOptionsSchema, options);
  const env = io.env ?? process.env;
  // As on the command line: the environment's vendor keys are masked in everything the sweep prints and writes.
  for (const key of environmentKeys(env)) registerSecret(key);
  let dir: string | null = null;
  const host: SweepHost = {
    ...realHost(["run"]),
    env,
    stdout: printingStream(io.stdout ?? discard) as NodeJS.WriteStream,
    stderr: printingStream(io.stderr ?? process.stderr) as NodeJS.WriteStream,
    // A library leaves the process's signals to its caller.
    onSignal: () => () => {},
    onRunFolder: (d) => void (dir = d),
  };
  const exitCode = await startSweep(sweepOptions, corpus, host, { source: "runSweep options", name: String });
  const summary = dir !== null && existsSync(join(dir, RUN_FILES.summary)) ? readSummary(dir) : null;
  return { exitCode, dir, summary };
}
