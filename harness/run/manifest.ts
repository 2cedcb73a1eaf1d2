import { existsSync, lstatSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { InputError, loadRunFile } from "../../src/formats/load.ts";
import { DecisionContextSchema, SpendSchema } from "../../src/formats/records.ts";
import { publicBaseUrl } from "../../src/providers/endpoint.ts";
import { LoopDelaySchema, LoopStatsSchema } from "./loop-stats.ts";
import { redactArgv } from "./redact.ts";
import { RecordedConfigSchema, recordedConfig } from "./settings.ts";
import { checkRunFolder, manifestVersion, RUN_FILES, type TrialHead } from "./store.ts";

export const MANIFEST_SCHEMA_VERSION = 2;

/** A date and time as the runner writes them (ISO 8601, UTC): runs are ordered and reported by them. */
const timestamp = z.iso.datetime({ error: "expected a date and time (ISO 8601, e.g. 2026-12-05T07:09:59.000Z)" });

export const RUN_STATES = ["running", "completed", "interrupted", "budget_stopped", "canary_failed"] as const;
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

/** `manifest.json` (DESIGN.md §8), validated when read back by resume and merge. */
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
   * The run's spend over every session, from its journal (DESIGN.md §8); `cost_usd_is_lower_bound`
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

/** The manifest's totals over the recorded trials (one record per key). */
export function totalsOf(records: readonly TrialHead[]): Manifest["totals"] {
  const costs = records.map((r) => r.cost_usd);
  return {
    recorded: records.length,
    errors: records.filter((r) => r.status === "error").length,
    calls: records.reduce((n, r) => n + r.calls, 0),
    cost_usd: costs.some((c) => c === null) ? null : costs.reduce<number>((a, c) => a + (c ?? 0), 0),
  };
}

/**
 * A manifest as fieldtest wrote it before the spend journal (v1): each session's calls and cost
 * counted at its end (a killed session's were lost), base URLs and command lines as given.
 */
const ManifestV1Schema = ManifestSchema.omit({ schema_version: true, sessions: true, spend: true, withheld_credentials: true }).extend({
  schema_version: z.literal(1),
  sessions: z.array(SessionSchema.omit({ id: true, spend: true }).extend({ outcome: z.enum(RUN_STATES), calls: z.number().int().min(0), cost_usd: z.number().nullable() })),
});

/**
 * A v1 manifest read as v2, so reports, gates, diffs and trends go on reading the runs recorded
 * before: with no journal its spend is unknown (null; its sessions' end-of-session counts forgot
 * killed ones), and the credentials it may hold in URLs and command lines are left out.
 */
function fromV1(m: z.output<typeof ManifestV1Schema>): Manifest {
  const publicRole = <R extends { base_url: string | null }>(r: R): R => ({ ...r, base_url: r.base_url === null ? null : publicBaseUrl(r.base_url) });
  return {
    ...m,
    schema_version: MANIFEST_SCHEMA_VERSION,
    command: redactArgv(m.command),
    // Recorded as a v2 run records its config, so a v1 run and a v2 run of one config read the same.
    config: recordedConfig(m.config),
    roles: { planner: publicRole(m.roles.planner), critic: publicRole(m.roles.critic) },
    sessions: m.sessions.map(({ calls: _calls, cost_usd: _cost, ...s }, i) => ({ ...s, command: redactArgv(s.command), id: `v1-${i + 1}`, spend: null })),
    spend: null,
    withheld_credentials: [],
  };
}

/** Whether a path names anything, a link included (a dangling one too). */
function isThere(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A run's manifest, validated; one written by an older fieldtest (v1) is read as v2. Every
 * command that reads or writes a run reads its manifest first, and with it checks the folder's
 * files (checkRunFolder): a link or a special file among them refuses the run.
 */
export function readManifest(dir: string): Manifest {
  const file = join(dir, RUN_FILES.manifest);
  // Named for what the user gave: a folder (report, gate, diff, --resume ... all take one).
  if (!isThere(file)) {
    const given = !existsSync(dir) ? "no such run folder" : statSync(dir).isDirectory() ? `not a run folder (it has no ${RUN_FILES.manifest})` : `is a file, not a run folder${basename(dir) === RUN_FILES.manifest ? ": give the folder that holds it" : ""}`;
    throw new InputError(dir, "", given);
  }
  checkRunFolder(dir);
  if (manifestVersion(dir) === 1) return fromV1(loadRunFile(file, ManifestV1Schema));
  return loadRunFile(file, ManifestSchema);
}

/** `<yyyymmdd>-<hhmmss>-<id>` (UTC): sorts by start time, unique by the random id. */
export function runIdFor(started: Date, id: string): string {
  return `${started.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15)}-${id}`;
}
