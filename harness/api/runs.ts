import { z } from "zod";
import type { Summary } from "../../src/metrics/summary.ts";
import { PACKAGED_CORPUS } from "../package.ts";
import { loadRun as readRun, type LoadedRun } from "../run/load.ts";
import { parseApiOptions, PathSchema } from "./options.ts";

/** A run folder and the corpus its ground truth is read from (default: the packaged corpus). */
export const RunOptionsSchema = z.strictObject({ run: PathSchema, corpus: PathSchema.default(PACKAGED_CORPUS) });
export type RunOptions = z.input<typeof RunOptionsSchema>;

/** A run folder read back: manifest, trials, the corpus items it was run on, its summary, spend and warnings. */
export function loadRun(options: RunOptions): LoadedRun {
  const { run, corpus } = parseApiOptions("loadRun", RunOptionsSchema, options);
  return readRun(run, corpus);
}

/** The metrics of a run (what summary.json holds), computed from its trials. */
export function summarize(options: RunOptions): Summary {
  const { run, corpus } = parseApiOptions("summarize", RunOptionsSchema, options);
  return readRun(run, corpus).summary;
}
