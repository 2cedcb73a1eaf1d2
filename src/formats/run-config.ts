import { z } from "zod";
import { CATEGORIES } from "./enums.ts";
import type { Suite } from "./records.ts";
import { ClientConfigSchema } from "../providers/config.ts";
import { ENGINE_MODES } from "../loop/engine.ts";

/** The suites a sweep spends on; `canary` always runs first and is not a trial suite. */
export const RUN_SUITES = ["corpus", "boundary", "security", "injection"] as const;
export type RunSuite = (typeof RUN_SUITES)[number];

/**
 * Everything that can change a result. Recorded in the manifest and hashed (with the code
 * fingerprint); a resume runs with it, shards merge only when theirs agree.
 */
export const RunConfigSchema = z.strictObject({
  suites: z.array(z.enum(RUN_SUITES)).min(1),
  only: z.array(z.string()).nullable(),
  domain: z.array(z.string()).nullable(),
  category: z.array(z.enum(CATEGORIES)).nullable(),
  trials: z.number().int().min(1),
  seed: z.number().int(),
  mode: z.enum(ENGINE_MODES),
  maxRounds: z.number().int().min(1),
  client: ClientConfigSchema,
  /** Set only by `--replay DIR`: the run whose recorded calls answer every role (absent otherwise, so other hashes are unchanged). */
  replayOf: z.strictObject({ runDir: z.string(), runId: z.string(), configHash: z.string() }).optional(),
  /** Domain pack folders (`--pack`, `packs:`); absent without packs. Their content enters the hash through the gate versions, not their path. */
  packs: z.array(z.string().min(1)).min(1).optional(),
  /**
   * An external engine (`--engine FILE`): it runs every corpus trial, its calls recorded by the
   * proxy; absent for fieldtest's own engine. Its manifest's path is not hashed, its content and
   * the version the engine reports are.
   */
  engine: z.strictObject({ file: z.string().min(1), name: z.string(), manifest_sha256: z.string(), version: z.string().nullable() }).optional(),
});
export type RunConfig = z.output<typeof RunConfigSchema>;

/** What an imported run records as its suite: trials converted from another harness's logs, never run here. */
export const IMPORTED_SUITE = "imported" satisfies Suite;

/**
 * The config a manifest records: a sweep's, or an imported run's, whose only suite is `imported`.
 * `fieldtest run` cannot select that suite (RunCliSchema, the config file) nor resume such a run.
 */
export const RecordedConfigSchema = RunConfigSchema.extend({
  suites: z.union([z.array(z.enum(RUN_SUITES)).min(1), z.tuple([z.literal(IMPORTED_SUITE)])]),
});
export type RecordedConfig = z.output<typeof RecordedConfigSchema>;
