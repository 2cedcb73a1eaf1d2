import { z } from "zod";
import { DecisionContextSchema, SpendSchema } from "./records.ts";
import { LoopDelaySchema, LoopStatsSchema } from "./loop-stats.ts";
import { RecordedConfigSchema } from "./run-config.ts";

export const MANIFEST_SCHEMA_VERSION = 2;

/** A date and time as the runner writes them (ISO 8601, UTC): runs are ordered and reported by them. */
const timestamp = z.iso.datetime({ error: "expected a date and time (ISO 8601, e.g. 2026-12-05T07:09:59.000Z)" });

const RUN_STATES = ["running", "completed", "interrupted", "budget_stopped", "canary_failed"] as const;
export type RunState = (typeof RUN_STATES)[number];

const ShardSchema = z.strictObject({ index: z.number().int().min(1), count: z.number().int().min(1) });

/** Per role: the request-side parameters every call of the role carries, plus prompt and schema hashes. */
const RoleSummarySchema = z.looseObject(
  DecisionContextSchema.pick({ provider: true, model: true, base_url: true, temperature: true, top_p: true, seed: true, max_tokens: true }).shape,
);

/** A session whose process died before it could say how it ended (found so by the next session). */
export const CRASHED = "crashed";

/** One invocation that wrote to the run (the first run, then each resume). */
const SessionSchema = z.strictObject({
  /** Names the session's lines in the spend journal. */
  id: z.string(),
  command: z.array(z.string()),
  started_at: timestamp,
  finished_at: timestamp.nullable(),
  outcome: z.enum([...RUN_STATES, CRASHED]),
  trials_written: z.number().int().min(0),
  /** The trial log's complete lines when the session began: a crashed session wrote the lines past it (absent before it was recorded). */
  log_lines_at_start: z.number().int().min(0).optional(),
  /** From the spend journal: what this session sent and paid, a killed session included; null without a journal (manifest v1). */
  spend: SpendSchema.nullable(),
});
export type Session = z.output<typeof SessionSchema>;

/** `manifest.json` (docs/design.md §8), validated when read back by resume and merge. */
export const ManifestSchema = z.strictObject({
  schema_version: z.literal(MANIFEST_SCHEMA_VERSION, { error: `expected ${MANIFEST_SCHEMA_VERSION} (a manifest of another fieldtest version)` }),
  run_id: z.string(),
  state: z.enum(RUN_STATES),
  started_at: timestamp,
  finished_at: timestamp.nullable(),
  harness: z.strictObject({ name: z.string(), version: z.string() }),
  git: z.strictObject({ sha: z.string().nullable(), dirty: z.boolean().nullable() }),
  node: z.string(),
  /** The command line that made the run (credential header values and URL credentials redacted; no environment). */
  command: z.array(z.string()),
  /** The run's config; suites `["imported"]` for a run converted by `fieldtest import`. */
  config: RecordedConfigSchema,
  config_hash: z.string(),
  /** Code-derived inputs covered by the config hash: prompts, schemas, gate versions, sim profile. */
  fingerprint: z.record(z.string(), z.unknown()),
  gate_versions: z.record(z.string(), z.unknown()),
  price_table_version: z.string().nullable(),
  roles: z.strictObject({ planner: RoleSummarySchema, critic: RoleSummarySchema }),
  corpus: z.strictObject({ hash: z.string(), items: z.record(z.string(), z.string()) }),
  /** The trial keys this run (or shard) owns, as items × trials. */
  plan: z.strictObject({
    items: z.array(z.string()),
    trials: z.number().int().min(1),
    planned: z.number().int().min(0),
    shard: ShardSchema.nullable(),
    shard_planned: z.number().int().min(0),
  }),
  operational: z.strictObject({
    concurrency: z.number().int().min(1),
    budget_usd: z.number().nullable(),
    max_calls: z.number().int().nullable(),
    /** The event loop of the last session while its trials ran: timer delay and busy time (absent in older runs). */
    event_loop: LoopStatsSchema.nullable().optional(),
    /** The HTTP thread's event loop over the same window, where the calls are timed: null when no call went over HTTP (absent in older runs). */
    http_thread_loop: LoopDelaySchema.nullable().optional(),
  }),
  canary: z.strictObject({ ok: z.boolean(), failures: z.array(z.string()), results: z.unknown() }).nullable(),
  sessions: z.array(SessionSchema),
  /**
   * The run's spend over every session, from its journal (docs/design.md §8); `cost_usd_is_lower_bound`
   * marks a cost that is not whole. null: the run has no journal (an imported run), its spend is unknown.
   */
  spend: SpendSchema.nullable(),
  /**
   * Credentials the run used that are never recorded (the userinfo and query of a role's base URL):
   * a resume must be given them again.
   */
  withheld_credentials: z.array(z.string()),
  /** Over the recorded trials; `calls` counts every transport attempt (`spend` counts what was sent, dropped trials included). */
  totals: z.strictObject({
    recorded: z.number().int().min(0),
    errors: z.number().int().min(0),
    calls: z.number().int().min(0),
    cost_usd: z.number().nullable(),
  }),
  /** Set by `fieldtest merge`: the shard runs this one was built from. */
  merged_from: z.array(z.strictObject({ dir: z.string(), run_id: z.string(), shard: ShardSchema.nullable() })).nullable(),
});
export type Manifest = z.output<typeof ManifestSchema>;

/**
 * A manifest as fieldtest wrote it before the spend journal (v1): each session's calls and cost
 * counted at its end (a killed session's were lost), base URLs and command lines as given.
 */
export const ManifestV1Schema = ManifestSchema.omit({ schema_version: true, sessions: true, spend: true, withheld_credentials: true }).extend({
  schema_version: z.literal(1),
  sessions: z.array(
    SessionSchema.omit({ id: true, spend: true }).extend({ outcome: z.enum(RUN_STATES), calls: z.number().int().min(0), cost_usd: z.number().nullable() }),
  ),
});
