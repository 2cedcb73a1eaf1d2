import { join } from "node:path";
import { z } from "zod";
import { loadFile } from "../../src/formats/load.ts";
import { compareSnapshots, type Comparison } from "../baseline/compare.ts";
import { diffSnapshots, type DiffResult } from "../baseline/diff.ts";
import type { GateResult } from "../baseline/gate.ts";
import { readComparable, readSnapshot, snapshotOfRun } from "../baseline/io.ts";
import { judge } from "../baseline/judge.ts";
import { gateJUnit } from "../baseline/junit.ts";
import { GatePolicySchema, type GatePolicy } from "../baseline/policy.ts";
import { DEFAULT_TREND_OPTIONS, headlineFamily, trend as trendOf, type TrendResult } from "../baseline/trend.ts";
import { MAX_REPS, wholeNumber } from "../config.ts";
import { writeOutputFile } from "../output.ts";
import { PACKAGED_CORPUS, PACKAGED_POLICY } from "../package.ts";
import { RUN_FILES, writeFileAtomic } from "../run/store.ts";
import { parseApiOptions, PathSchema } from "./options.ts";

/** Where a reader's warnings go (a corpus changed since the run, a run that is only a part): stderr unless given. */
export interface Warned {
  warn?: (line: string) => void;
}
const warnOf = ({ warn }: Warned) => warn ?? ((line: string) => void process.stderr.write(`fieldtest: warning: ${line}\n`));

const corpus = PathSchema.default(PACKAGED_CORPUS);

export const GateOptionsSchema = z.strictObject({
  /** The candidate run folder. */
  run: PathSchema,
  /** A published baseline (baselines/NAME.json). */
  baseline: PathSchema,
  /** The pre-registered gate policy (default: the shipped gate.yaml). */
  policy: PathSchema.default(PACKAGED_POLICY),
  /** Where the JUnit XML goes (default: the run folder's gate-junit.xml). */
  junit: PathSchema.optional(),
  corpus,
});
export type GateOptions = z.input<typeof GateOptionsSchema>;

export interface GateOutcome {
  result: GateResult;
  policy: GatePolicy;
  /** 0 pass, 1 regression, 2 inconclusive, 3 infrastructure error (docs/reference/exit-codes.md). */
  exitCode: GateResult["exit"];
  /** The JUnit XML file written. */
  junit: string;
}

/** The release gate: a run against a baseline under a pre-registered policy; writes its JUnit XML. */
export function gate(options: GateOptions, io: Warned = {}): GateOutcome {
  const o = parseApiOptions("gate", GateOptionsSchema, options);
  const { result, policy } = judge(snapshotOfRun(o.run, o.corpus, { warn: warnOf(io) }), o.baseline, o.policy);
  const xml = gateJUnit(result);
  // The default lands in the run folder, written as its files are (never through a link); a file the caller names is theirs.
  const junit = o.junit ?? join(o.run, RUN_FILES.junit);
  if (o.junit === undefined) writeFileAtomic(junit, xml);
  else writeOutputFile(o.junit, xml, "--junit");
  return { result, policy, exitCode: result.exit, junit };
}

export const DiffOptionsSchema = z.strictObject({
  run: PathSchema,
  baseline: PathSchema,
  /** Family-wise level of the per-item tests (Holm over items). */
  alpha: z.number().gt(0).lt(1).default(0.05),
  corpus,
});
export type DiffOptions = z.input<typeof DiffOptionsSchema>;

/** A run against a baseline, every delta attributed (noise, cause, unexplained); exit code 0 when none is unexplained, else 1. */
export function diff(options: DiffOptions, io: Warned = {}): DiffResult & { exitCode: 0 | 1 } {
  const o = parseApiOptions("diff", DiffOptionsSchema, options);
  const d = diffSnapshots(readSnapshot(o.baseline), snapshotOfRun(o.run, o.corpus, { warn: warnOf(io) }), o.alpha);
  return { ...d, exitCode: d.unexplained.length === 0 ? 0 : 1 };
}

export const CompareOptionsSchema = z.strictObject({
  /** Run A (the candidate): a run folder or a baseline file. */
  a: PathSchema,
  /** Run B (the reference): a run folder or a baseline file. */
  b: PathSchema,
  /** Family-wise level of the verdict across the paired metrics (Holm). */
  alpha: z.number().gt(0).lt(0.5).default(0.05),
  /** Permutation re-splits for excess disagreement. */
  reps: wholeNumber(100, MAX_REPS).default(10_000),
  seed: wholeNumber().default(0),
  corpus,
});
export type CompareOptions = z.input<typeof CompareOptionsSchema>;

/** Model-swap comparison of run A against run B on the same items. */
export function compare(options: CompareOptions, io: Warned = {}): Comparison {
  const o = parseApiOptions("compare", CompareOptionsSchema, options);
  const warn = warnOf(io);
  return compareSnapshots(readComparable(o.a, o.corpus, warn), readComparable(o.b, o.corpus, warn), { reps: o.reps, seed: o.seed, alpha: o.alpha });
}

/** The metrics of a gate policy: the headline family of a trend. */
export const headlineOf = (policyFile: string): string[] => headlineFamily(loadFile(policyFile, GatePolicySchema));

export const TrendOptionsSchema = z.strictObject({
  /** Run folders or baseline files, oldest first. */
  runs: z.array(PathSchema).min(1),
  /** The in-control reference: a (multi-run) baseline; without one, the first referenceRuns runs are the reference. */
  baseline: PathSchema.optional(),
  referenceRuns: wholeNumber(2).default(DEFAULT_TREND_OPTIONS.referenceRuns),
  /** The gate policy whose metrics are the headline family (default: the shipped gate.yaml). */
  policy: PathSchema.default(PACKAGED_POLICY),
  /** Trailing window W (runs). */
  window: wholeNumber(2).default(DEFAULT_TREND_OPTIONS.window),
  /** False alarms per run allowed in each chart, within each family. */
  alpha: z.number().gt(0).lt(0.5).default(DEFAULT_TREND_OPTIONS.alpha),
  /** Chart only these metrics (an unknown name is an error). */
  metrics: z.array(z.string()).min(1, "name at least one metric").optional(),
  corpus,
});
export type TrendOptions = z.input<typeof TrendOptionsSchema>;

/** Drift over a history of runs: control charts per metric, alarms within each family. */
export function trend(options: TrendOptions, io: Warned = {}): TrendResult {
  const o = parseApiOptions("trend", TrendOptionsSchema, options);
  const warn = warnOf(io);
  return trendOf(
    o.runs.map((p) => readComparable(p, o.corpus, warn)),
    o.baseline ? readSnapshot(o.baseline) : null,
    { window: o.window, alpha: o.alpha, referenceRuns: o.referenceRuns, headline: headlineOf(o.policy), ...(o.metrics ? { metrics: o.metrics } : {}) },
  );
}
