import { z } from "zod";
import { hashCanonical } from "../../src/canonical.ts";
import type { Fixture } from "../../src/formats/fixture.ts";
import { InputError } from "../../src/formats/load.ts";
import type { TrialRecord } from "../../src/formats/records.ts";
import { groupTrials, summarizeItem } from "../../src/metrics/items.ts";
import type { Manifest } from "../run/manifest.ts";
import { itemValues } from "./item-values.ts";
import { itemKey, type Metric, type RoleContext, type Snapshot, type SnapshotItem } from "./schema.ts";

/** The prompt hashes the runner records per role (`roles.<role>.prompt`). */
const PromptHashesSchema = z.looseObject({
  system_sha256: z.string().nullable().default(null),
  /** One template hash, or one per template name. */
  user_template_sha256: z.union([z.string(), z.record(z.string(), z.string())]).nullable().default(null),
  schema_sha256: z.string().nullable().default(null),
});

/**
 * A role's decision context from the manifest (DESIGN.md §7, §8): provider, endpoint, model and
 * sampling parameters, the prompt and schema hashes the role's requests were built from (several
 * user templates are hashed together, canonically), and for the sim provider its behaviour
 * profile and code version, which are to the sim what the model is to a real provider.
 */
function roleContext(manifest: Manifest, name: "planner" | "critic"): RoleContext {
  const role = manifest.roles[name];
  const sim = role.provider === "sim" ? manifest.config.client.sim?.profile?.[name] : undefined;
  const parsed = PromptHashesSchema.safeParse((role as Record<string, unknown>).prompt ?? {});
  if (!parsed.success) throw new InputError("manifest.json", `roles.${name}.prompt`, parsed.error.issues[0]!.message);
  const prompt = parsed.data;
  const templates = prompt.user_template_sha256;
  return {
    provider: role.provider,
    base_url: role.base_url,
    model: role.model,
    temperature: role.temperature,
    top_p: role.top_p,
    seed: role.seed,
    max_tokens: role.max_tokens,
    system_prompt_sha256: prompt.system_sha256,
    user_template_sha256: templates === null || typeof templates === "string" ? templates : hashCanonical(templates),
    schema_sha256: prompt.schema_sha256,
    sim_profile_sha256: sim === undefined ? null : hashCanonical({ profile: sim, version: manifest.fingerprint.sim_version ?? null }),
  };
}

/** Gate versions as strings (the manifest may record any JSON value per gate). */
function gateVersions(versions: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(versions).map(([g, v]) => [g, typeof v === "string" ? v : JSON.stringify(v)]));
}

export interface SnapshotInput {
  name: string;
  manifest: Manifest;
  trials: readonly TrialRecord[];
  fixtures: readonly Fixture[];
  /** summary.json's `metrics` (extra fields such as the interval method are dropped). */
  metrics: Record<string, Metric>;
}

/** Reduce a run to a snapshot: what a baseline publishes and what a diff, gate or comparison reads. */
export function buildSnapshot(input: SnapshotInput): Snapshot {
  const { manifest, trials } = input;
  const fixtures = new Map(input.fixtures.map((f) => [f.id, f]));
  const items: SnapshotItem[] = groupTrials(trials).map((group) => {
    const s = summarizeItem(group);
    return {
      suite: s.suite,
      item_id: s.item_id,
      item_hash: manifest.corpus.items[itemKey(s)] ?? s.item_hashes.join("+"),
      scheme: group.scheme,
      n_trials: s.n_trials,
      n_counted: s.n_counted,
      verdict_counts: s.verdict_counts,
      modal_verdict: s.modal_verdict,
      unanimous: s.unanimous,
      blocker_key_counts: s.blocker_keys,
      values: itemValues(group, group.scheme === "critic" ? fixtures.get(s.item_id) : undefined),
    };
  });
  const metrics = Object.fromEntries(
    Object.entries(input.metrics).map(([k, m]) => [k, { value: m.value, ci_low: m.ci_low, ci_high: m.ci_high, n_items: m.n_items, n_trials: m.n_trials }]),
  );
  return {
    schema_version: 1,
    kind: "fieldtest-snapshot",
    name: input.name,
    run_id: manifest.run_id,
    config_hash: manifest.config_hash,
    seed: manifest.config.seed,
    started_at: manifest.started_at,
    corpus_hash: manifest.corpus.hash,
    gate_versions: gateVersions(manifest.gate_versions),
    canary_passed: manifest.canary?.ok ?? null,
    decision_context: { planner: roleContext(manifest, "planner"), critic: roleContext(manifest, "critic") },
    trials_per_item: items.length ? Math.min(...items.map((i) => i.n_trials)) : null,
    error_trials: trials.filter((t) => t.status === "error").length,
    total_trials: trials.length,
    metrics,
    items,
  };
}
