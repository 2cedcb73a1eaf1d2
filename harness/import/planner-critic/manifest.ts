import { hashCanonical } from "../../../src/canonical.ts";
import { GATE_VERSIONS } from "../../../src/gates/index.ts";
import { NO_SPEND } from "../../run/journal.ts";
import { MANIFEST_SCHEMA_VERSION, type Manifest } from "../../../src/formats/manifest.ts";
import { IMPORTED_SUITE, type RecordedConfig } from "../../../src/formats/run-config.ts";
import type { CanaryReport } from "../../canary.ts";
import { goalItemKey } from "../../corpus/load.ts";
import { CALL_FIELDS_NOT_RECORDED, NOT_RECORDED } from "./calls.ts";
import { CLAIM_EXTRACTOR_VERSION } from "./claims.ts";
import type { ImportedTrialRecord } from "./trial.ts";

interface ImportManifestInput {
  runId: string;
  command: string[];
  harnessVersion: string;
  importedAt: { started: string; finished: string };
  trials: readonly ImportedTrialRecord[];
  /** item id → content hash of its converted goal. */
  items: Record<string, string>;
  /** Where the run came from: its group, its dimension and the predecessor's settings of that dimension. */
  source: ImportedRunSource;
  canary: CanaryReport;
}

/** The predecessor run an imported run stands for (one run group × one dimension × one critic prompt). */
export interface ImportedRunSource {
  /** `<group>/<dimension>`, with `@critic-<hash>` when the group's trials used more than one critic prompt. */
  run: string;
  group: string;
  dimension: string;
  /** The predecessor's critique mode and its fieldtest `--mode`. */
  critique_mode: string;
  mode: RecordedConfig["mode"];
  /** Rounds at most (the predecessor's revision cap counts rounds), and where that number comes from. */
  max_rounds: number;
  max_rounds_note: string | null;
  /** The replan policy the dimension ran every goal with; null: each goal's own. */
  replan_policy: string | null;
}

/** Trial keys are `imported/<id>`; the goals themselves are corpus items (`fieldtest report DIR --corpus DIR` reads them). */
const planKey = (id: string) => `imported/${id}`;

function modelOf(trials: readonly ImportedTrialRecord[], role: "planner" | "critic"): string {
  const models = [...new Set(trials.flatMap((t) => t.calls.filter((c) => c.role === role).map((c) => c.context.model)))].sort();
  return models.length === 0 ? "not_recorded" : models.join(",");
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

/**
 * A role's system prompts: every distinct one its calls carried, and the one it opened each
 * trial with (the planner's later revise calls carry a second prompt). The opening prompt is the
 * role's prompt variant: one hash when every trial opened with the same text, else the
 * canonical hash of the sorted set; null when the role made no logged call.
 */
function systemPrompts(trials: readonly ImportedTrialRecord[], role: "planner" | "critic"): { variant: string | null; opening: string[]; all: string[] } {
  const known = (h: string) => h !== NOT_RECORDED;
  const opening = sorted(
    trials
      .flatMap((t) =>
        t.calls
          .filter((c) => c.role === role)
          .slice(0, 1)
          .map((c) => c.context.system_prompt_sha256),
      )
      .filter(known),
  );
  const all = sorted(trials.flatMap((t) => t.calls.filter((c) => c.role === role).map((c) => c.context.system_prompt_sha256)).filter(known));
  return { variant: opening.length === 0 ? null : opening.length === 1 ? opening[0]! : hashCanonical(opening), opening, all };
}

/** The recorded run's configuration as a run config: its mode, round cap and models; fieldtest's defaults elsewhere. */
function recordedConfig(source: ImportedRunSource, trialsPerItem: number, models: { planner: string; critic: string }): RecordedConfig {
  return {
    suites: [IMPORTED_SUITE],
    only: null,
    domain: null,
    category: null,
    trials: trialsPerItem,
    seed: 0,
    mode: source.mode,
    maxRounds: source.max_rounds,
    client: {
      planner: { provider: "openai", model: models.planner },
      critic: { provider: "openai", model: models.critic },
      // The predecessor's enforcer made 3 attempts; its logging wrapper turned transport retries off.
      maxOutputAttempts: 3,
      maxRetries: 0,
    },
  };
}

/** What the import adds to the fingerprint: its source, claim extractor and system prompts, and which config fields it describes. */
function importFingerprint(source: ImportedRunSource, prompts: Record<"planner" | "critic", { all: string[] }>) {
  return {
    import: {
      format: "planner-critic-0.1.0",
      ...source,
      claim_extractor: CLAIM_EXTRACTOR_VERSION,
      system_prompts: { planner: prompts.planner.all, critic: prompts.critic.all },
      config_note:
        "seed and trials describe this import, not the predecessor's run (it ran each goal once per dimension); provider is the wire format of its OpenAI-compatible transport",
      not_recorded: [...CALL_FIELDS_NOT_RECORDED],
    },
  };
}

/** A role as the logs recorded it: the messages, so the system prompt is hashed; no user template or schema was logged. */
function recordedRole(model: string, system: string | null) {
  return {
    provider: "openai",
    model,
    base_url: null,
    temperature: null,
    top_p: null,
    seed: null,
    max_tokens: null,
    prompt: { system_sha256: system, user_template_sha256: null, schema_sha256: null },
  };
}

/**
 * The manifest of an imported run (docs/design.md §8), valid under the run manifest schema so every
 * command reads it like any other. Its config describes the recorded run where the logs say so
 * (models, round cap) and fieldtest's defaults elsewhere; `fingerprint.import` says which is which.
 */
export function importManifest(input: ImportManifestInput): Manifest {
  const { trials, source } = input;
  const trialsPerItem = Math.max(1, ...Object.keys(input.items).map((id) => trials.filter((t) => t.item_id === id).length));
  const roles = { planner: modelOf(trials, "planner"), critic: modelOf(trials, "critic") };
  const config = recordedConfig(source, trialsPerItem, roles);
  const prompts = { planner: systemPrompts(trials, "planner"), critic: systemPrompts(trials, "critic") };
  const fingerprint = importFingerprint(source, prompts);
  const calls = trials.reduce((n, t) => n + t.calls.length, 0);
  const startedAt = trials.map((t) => t.started_at).sort()[0] ?? input.importedAt.started;
  const finishedAt =
    trials
      .map((t) => t.finished_at)
      .sort()
      .at(-1) ?? input.importedAt.finished;
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
    roles: { planner: recordedRole(roles.planner, prompts.planner.variant), critic: recordedRole(roles.critic, prompts.critic.variant) },
    corpus: { hash: hashCanonical(items), items },
    plan: { items: Object.keys(input.items).map(planKey).sort(), trials: trialsPerItem, planned: trials.length, shard: null, shard_planned: trials.length },
    operational: { concurrency: 1, budget_usd: null, max_calls: null },
    canary: { ok: input.canary.ok, failures: input.canary.failures, results: input.canary.results },
    sessions: [
      {
        id: "import",
        command: input.command,
        started_at: input.importedAt.started,
        finished_at: input.importedAt.finished,
        outcome: "completed",
        trials_written: trials.length,
        spend: NO_SPEND,
      },
    ],
    // The import itself sends nothing (its session's spend), and what the predecessor spent is not
    // recorded: the run's spend is unknown (totals.cost_usd null).
    spend: null,
    withheld_credentials: [],
    totals: { recorded: trials.length, errors: trials.filter((t) => t.status === "error").length, calls, cost_usd: null },
    merged_from: null,
  };
}
