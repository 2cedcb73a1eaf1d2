import { existsSync, lstatSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { z } from "zod";
import { InputError, loadRunFile } from "../../src/formats/load.ts";
import { MANIFEST_SCHEMA_VERSION, ManifestSchema, ManifestV1Schema, type Manifest } from "../../src/formats/manifest.ts";
import { publicBaseUrl } from "../../src/providers/endpoint.ts";
import { redactArgv } from "./redact.ts";
import { recordedConfig } from "./settings.ts";
import { checkRunFolder, manifestVersion, RUN_FILES, type TrialHead } from "./store.ts";

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
    const given = !existsSync(dir)
      ? "no such run folder"
      : statSync(dir).isDirectory()
        ? `not a run folder (it has no ${RUN_FILES.manifest})`
        : `is a file, not a run folder${basename(dir) === RUN_FILES.manifest ? ": give the folder that holds it" : ""}`;
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
