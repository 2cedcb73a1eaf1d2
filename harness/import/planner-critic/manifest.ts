import { hashCanonical } from "../../../src/canonical.ts";
import { GATE_VERSIONS } from "../../../src/gates/index.ts";
import { MANIFEST_SCHEMA_VERSION, type Manifest } from "../../run/manifest.ts";
import { IMPORTED_SUITE, type RecordedConfig } from "../../run/settings.ts";
import type { CanaryReport } from "../../canary.ts";
import { goalItemKey } from "../../corpus/load.ts";
import { CALL_FIELDS_NOT_RECORDED } from "./calls.ts";
import { CLAIM_EXTRACTOR_VERSION } from "./claims.ts";
import type { ImportedTrialRecord } from "./trial.ts";

/** The predecessor's field-test CLI default (`--revision-cap 4`), used when no report.json records the cap. */
export const PREDECESSOR_DEFAULT_CAP = 4;

export interface ImportManifestInput {
  runId: string;
  command: string[];
  harnessVersion: string;
  importedAt: { started: string; finished: string };
  trials: readonly ImportedTrialRecord[];
  /** item id → content hash of its converted goal. */
  items: Record<string, string>;
  /** revision_cap values found in the sweeps' report.json (the predecessor counted rounds). */
  revisionCaps: readonly number[];
  canary: CanaryReport;
}

/** Trial keys are `imported/<id>`; the goals themselves are corpus items (`fieldtest report DIR --corpus DIR` reads them). */
const planKey = (id: string) => `imported/${id}`;

function modelOf(trials: readonly ImportedTrialRecord[], role: "planner" | "critic"): string {
  const models = [...new Set(trials.flatMap((t) => t.calls.filter((c) => c.role === role).map((c) => c.context.model)))].sort();
  return models.length === 0 ? "not_recorded" : models.join(",");
}

/**
 * The manifest of an imported run (DESIGN.md §8), valid under the run manifest schema so every
 * command reads it like any other. Its config describes the recorded run where the logs say so
 * (models, round cap) and fieldtest's defaults elsewhere; `fingerprint.import` says which is which.
 */
export function importManifest(input: ImportManifestInput): Manifest {
  const { trials } = input;
  const caps = [...new Set(input.revisionCaps)].sort((a, b) => a - b);
  const trialsPerItem = Math.max(1, ...Object.keys(input.items).map((id) => trials.filter((t) => t.item_id === id).length));
  const roles = { planner: modelOf(trials, "planner"), critic: modelOf(trials, "critic") };
  const config: RecordedConfig = {
    suites: [IMPORTED_SUITE],
    only: null,
    domain: null,
    category: null,
    trials: trialsPerItem,
    seed: 0,
    mode: "gates-first",
    maxRounds: caps.at(-1) ?? PREDECESSOR_DEFAULT_CAP,
    client: {
      planner: { provider: "openai", model: roles.planner },
      critic: { provider: "openai", model: roles.critic },
      // The predecessor's enforcer made 3 attempts; its logging wrapper turned transport retries off.
      maxOutputAttempts: 3,
      maxRetries: 0,
    },
  };
  const fingerprint = {
    import: {
      source: "planner-critic-0.1.0",
      claim_extractor: CLAIM_EXTRACTOR_VERSION,
      revision_caps: caps,
      revision_cap_note: caps.length === 0 ? `no report.json: the predecessor's default cap ${PREDECESSOR_DEFAULT_CAP}` : caps.length > 1 ? "sweeps used different caps: the largest is maxRounds" : null,
      config_note: "seed, trials and mode describe this import, not the predecessor's run; provider is the wire format of its OpenAI-compatible transport",
      not_recorded: [...CALL_FIELDS_NOT_RECORDED],
    },
  };
  const role = (model: string) => ({ provider: "openai", model, base_url: null, temperature: null, top_p: null, seed: null, max_tokens: null });
  const calls = trials.reduce((n, t) => n + t.calls.length, 0);
  const startedAt = trials.map((t) => t.started_at).sort()[0] ?? input.importedAt.started;
  const finishedAt = trials.map((t) => t.finished_at).sort().at(-1) ?? input.importedAt.finished;
  const items = Object.fromEntries(Object.entries(input.items).map(([id, hash]) => [goalItemKey(id), hash]));
  return {
    schema_version: MANIFEST_SCHEMA_VERSION,
    run_id: input.runId,
    state: "completed",
    started_at: startedAt,
    finished_at: finishedAt,
    harness: { name: "fieldtest", version: input.harnessVersion },
    git: { sha: null, dirty: null },
    node: process.version,
    command: input.command,
    config,
    config_hash: hashCanonical({ config, fingerprint }),
    fingerprint,
    gate_versions: GATE_VERSIONS,
    price_table_version: null,
    roles: { planner: role(roles.planner), critic: role(roles.critic) },
    corpus: { hash: hashCanonical(items), items },
    plan: { items: Object.keys(input.items).map(planKey).sort(), trials: trialsPerItem, planned: trials.length, shard: null, shard_planned: trials.length },
    operational: { concurrency: 1, budget_usd: null, max_calls: null },
    canary: { ok: input.canary.ok, failures: input.canary.failures, results: input.canary.results },
    sessions: [
      {
        command: input.command,
        started_at: input.importedAt.started,
        finished_at: input.importedAt.finished,
        outcome: "completed",
        trials_written: trials.length,
        calls,
        cost_usd: null,
      },
    ],
    totals: { recorded: trials.length, errors: trials.filter((t) => t.status === "error").length, calls, cost_usd: null },
    merged_from: null,
  };
}
