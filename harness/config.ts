import { existsSync } from "node:fs";
import { z } from "zod";
import { CATEGORIES } from "../src/formats/enums.ts";
import { loadFile } from "../src/formats/load.ts";
import { ENGINE_MODES } from "../src/loop/engine.ts";
import { HeadersSchema, RoleConfigSchema } from "../src/providers/config.ts";
import { RUN_SUITES } from "../src/formats/run-config.ts";

/**
 * The most trials per item a run may ask for: 10,000 trials of every corpus item and fixture are
 * 2.4 million trials, past any sweep; a larger number (a typo, 1e12) would only exhaust memory
 * planning them.
 */
export const MAX_TRIALS = 10_000;

/**
 * The most trials a run keeps in flight: each holds its sends, sockets and records in memory, and
 * past a thousand a provider's own limits throttle anyway; a larger number (1e12) is a typo.
 */
export const MAX_CONCURRENCY = 1024;

/** A whole number, at least `min` and at most `max` when given: the type of every count a setting or an option holds. */
export function wholeNumber(min?: number, max?: number) {
  const whole = z.number().int("expected a whole number");
  const low = min === undefined ? whole : whole.min(min);
  return max === undefined ? low : low.max(max);
}

/** The most permutation re-splits a comparison takes: a million gives p to three digits in minutes; more only hangs. */
export const MAX_REPS = 1_000_000;

const DEFAULT_CONFIG_FILE = "fieldtest.config.yaml";

/** Role settings in the file are partial: unset fields keep the built-in default (the sim). */
const RolePatchSchema = z
  .strictObject({ ...RoleConfigSchema.shape, headers: HeadersSchema })
  .omit({ replay: true })
  .partial();
export type RolePatch = z.output<typeof RolePatchSchema>;

/** Token assumptions behind `--dry-run` and the budget refusal (see harness/run/budget.ts). */
export const EstimateSchema = z.strictObject({
  /** Mean rounds per engine trial (a round is one planner call and at most one critic call). */
  roundsPerGoal: z.number().positive().default(2),
  planner: z.strictObject({ inputTokens: z.number().int().min(0), outputTokens: z.number().int().min(0) }).default({ inputTokens: 2500, outputTokens: 1500 }),
  critic: z.strictObject({ inputTokens: z.number().int().min(0), outputTokens: z.number().int().min(0) }).default({ inputTokens: 4000, outputTokens: 800 }),
});
export type Estimate = z.output<typeof EstimateSchema>;

/**
 * `fieldtest.config.yaml`: every key optional; CLI flags override the file, the file overrides
 * the built-in defaults. Unknown keys are an error naming the file and key path.
 */
export const ConfigFileSchema = z.strictObject({
  suites: z.array(z.enum(RUN_SUITES)).min(1).optional(),
  only: z.array(z.string().min(1)).nullable().optional(),
  domain: z.array(z.string().min(1)).nullable().optional(),
  category: z.array(z.enum(CATEGORIES)).nullable().optional(),
  trials: z.number().int().min(1).max(MAX_TRIALS).optional(),
  seed: z.number().int().optional(),
  mode: z.enum(ENGINE_MODES).optional(),
  maxRounds: z.number().int().min(1).optional(),
  roles: z.strictObject({ planner: RolePatchSchema.optional(), critic: RolePatchSchema.optional() }).optional(),
  /** Applies to both roles before the per-role settings. */
  provider: RolePatchSchema.optional(),
  /** Path of a sim profile YAML (src/sim/profiles/); null or absent: the default profile. */
  simProfile: z.string().min(1).nullable().optional(),
  /** Replay a previous run (as `--replay DIR`): every role answers from its recorded calls. */
  replay: z.strictObject({ runDir: z.string().min(1), fallThrough: z.boolean().default(false) }).optional(),
  maxOutputAttempts: z.number().int().min(1).optional(),
  maxRetries: z.number().int().min(0).optional(),
  concurrency: z.number().int().min(1).max(MAX_CONCURRENCY).optional(),
  budgetUsd: z.number().positive().nullable().optional(),
  maxCalls: z.number().int().positive().nullable().optional(),
  estimate: EstimateSchema.optional(),
  /** Domain pack folders to enable (as `--pack DIR`); their rules gate every plan. */
  packs: z.array(z.string().min(1)).optional(),
  /** An external engine's manifest (as `--engine FILE`): it runs the corpus goals, fieldtest records and judges. */
  engine: z.string().min(1).optional(),
});
export type ConfigFile = z.output<typeof ConfigFileSchema>;

/**
 * The file named by `--config`, else `fieldtest.config.yaml` in the working directory when it
 * exists, else no file (built-in defaults).
 */
export function loadConfigFile(path: string | undefined, cwdDefault = DEFAULT_CONFIG_FILE): ConfigFile {
  if (path !== undefined) return loadFile(path, ConfigFileSchema);
  return existsSync(cwdDefault) ? loadFile(cwdDefault, ConfigFileSchema) : {};
}
