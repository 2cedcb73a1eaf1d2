import { z } from "zod";
import { hashCanonical } from "../../src/canonical.ts";
import type { Fixture } from "../../src/formats/fixture.ts";
import { InputError } from "../../src/formats/load.ts";
import type { TrialRecord } from "../../src/formats/records.ts";
import { groupTrials, summarizeItem } from "../../src/metrics/items.ts";
import { itemContexts } from "../../src/metrics/run-items.ts";
import { sdOf, statsOf } from "../../src/stats/drift.ts";
import type { Manifest } from "../../src/formats/manifest.ts";
import { itemRatios, itemValues } from "./item-values.ts";
import {
  itemKey,
  SNAPSHOT_SCHEMA_VERSION,
  type BetweenRuns,
  type Metric,
  type RoleContext,
  type Snapshot,
  type SnapshotItem,
} from "../../src/formats/snapshot.ts";

/** The prompt hashes the runner records per role (`roles.<role>.prompt`). */
const PromptHashesSchema = z.looseObject({
  system_sha256: z.string().nullable().default(null),
  /** One template hash, or one per template name. */
  user_template_sha256: z
    .union([z.string(), z.record(z.string(), z.string())])
    .nullable()
    .default(null),
  schema_sha256: z.string().nullable().default(null),
});

/**
 * A role's decision context from the manifest (docs/design.md §7, §8): provider, endpoint, model and
 * sampling parameters, the prompt and schema hashes the role's requests were built from (several
 * user templates are hashed together, canonically), and for the sim provider its behaviour
 * profile and code version, which are to the sim what the model is to a real provider.
 */
function roleContext(manifest: Manifest, name: "planner" | "critic", trials: readonly TrialRecord[]): RoleContext {
  const role = manifest.roles[name];
  if (manifest.config.engine) return engineRoleContext(role, name, trials);
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

/**
 * An external engine's role: its endpoint and model from the manifest, and what its requests set
 * from the requests themselves (the engine's prompts and sampling are its own): a value all its
 * calls agree on, or for differing prompt and schema hashes the hash of their sorted set.
 */
function engineRoleContext(role: Manifest["roles"]["planner"], name: string, trials: readonly TrialRecord[]): RoleContext {
  const contexts = trials.flatMap((t) => t.calls.filter((c) => c.role === name).map((c) => c.context));
  const distinct = <T>(pick: (c: (typeof contexts)[number]) => T): T[] => [...new Set(contexts.map(pick))].sort();
  const agreed = <T>(pick: (c: (typeof contexts)[number]) => T | null): T | null => {
    const values = distinct(pick);
    return values.length === 1 ? values[0]! : null;
  };
  const hashed = (pick: (c: (typeof contexts)[number]) => string | null): string | null => {
    const values = distinct(pick);
    return values.length <= 1 ? (values[0] ?? null) : hashCanonical(values);
  };
  return {
    provider: role.provider,
    base_url: role.base_url,
    model: role.model,
    temperature: agreed((c) => c.temperature),
    top_p: agreed((c) => c.top_p),
    seed: agreed((c) => c.seed),
    max_tokens: agreed((c) => c.max_tokens),
    system_prompt_sha256: hashed((c) => c.system_prompt_sha256),
    user_template_sha256: null,
    schema_sha256: hashed((c) => c.schema_sha256),
    sim_profile_sha256: null,
  };
}

/** Per role, the distinct model names its calls' answers reported, sorted. */
function reportedModels(trials: readonly TrialRecord[]): Record<string, string[]> {
  const seen = new Map<string, Set<string>>();
  for (const t of trials) {
    for (const c of t.calls) {
      if (c.reported.model === null) continue;
      let models = seen.get(c.role);
      if (models === undefined) seen.set(c.role, (models = new Set()));
      models.add(c.reported.model);
    }
  }
  return Object.fromEntries([...seen].sort(([a], [b]) => (a < b ? -1 : 1)).map(([role, models]) => [role, [...models].sort()]));
}

/** Gate versions as strings (the manifest may record any JSON value per gate). */
function gateVersions(versions: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(versions).map(([g, v]) => [g, typeof v === "string" ? v : JSON.stringify(v)]));
}

/** One run to reduce: its manifest, its trials and its own summary metrics. */
interface RunPart {
  manifest: Manifest;
  trials: readonly TrialRecord[];
  /** summary.json's `metrics` of this run alone (extra fields such as the interval method are dropped). */
  metrics: Record<string, Metric>;
}

interface SnapshotInput {
  name: string;
  /** One run, or several runs of one configuration (checked by the caller: `poolingProblem`). */
  runs: readonly RunPart[];
  fixtures: readonly Fixture[];
  /** The metrics over all runs' trials pooled (the run's own metrics when there is one run). */
  metrics: Record<string, Metric>;
}

/**
 * The trials of several runs as one sample: run r's trial t becomes trial r·N + t (N the largest
 * trial count + 1 of any run), so trial keys stay unique and each item carries every run's trials.
 */
export function poolTrials(runs: readonly (readonly TrialRecord[])[]): TrialRecord[] {
  if (runs.length === 1) return [...runs[0]!];
  const stride = Math.max(0, ...runs.flatMap((trials) => trials.map((t) => t.trial + 1)));
  return runs.flatMap((trials, r) => trials.map((t) => ({ ...t, trial: r * stride + t.trial })));
}

function metricOf(m: Metric): Metric {
  const out: Metric = { value: m.value, ci_low: m.ci_low, ci_high: m.ci_high, n_items: m.n_items, n_trials: m.n_trials };
  if (m.numerator !== undefined) out.numerator = m.numerator;
  if (m.denominator !== undefined) out.denominator = m.denominator;
  return out;
}

/** Each metric across the runs: per-run values, events and units, their mean and SD (a baseline's `between_runs`). */
function betweenRuns(runs: readonly Pick<RunPart, "metrics">[]): Record<string, BetweenRuns> {
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.metrics)))].sort();
  return Object.fromEntries(
    names.map((name) => {
      const own = runs.map((r) => r.metrics[name]);
      const values = own.map((m) => m?.value ?? null);
      const known = values.filter((v): v is number => v !== null);
      const stats = statsOf(known);
      return [
        name,
        {
          values,
          numerators: own.map((m) => m?.numerator ?? null),
          denominators: own.map((m) => m?.denominator ?? null),
          n: known.length,
          mean: known.length ? stats.mean : null,
          sd: sdOf(stats),
        },
      ];
    }),
  );
}

/**
 * Each item's per-item metric values, averaged over the runs (each run's value from its own
 * trials), and its ratio counts, summed over the runs. A paired delta then compares like with
 * like: a candidate run's item value has the same expectation as one baseline run's, even for a
 * statistic whose expectation depends on the number of trials (evidence drift among the trials
 * that agree with the modal verdict). An injection twin's values are its pair's, with its control
 * from the same run. The security and injection suites' items have none: their metrics are their
 * suites' own, computed from their ground truth.
 */
function runMeanValues(runs: readonly RunPart[], fixtures: readonly Fixture[]): Map<string, Pick<SnapshotItem, "values" | "ratios">> {
  const sums = new Map<string, { values: Record<string, { sum: number; n: number }>; ratios: Record<string, { num: number; den: number }> }>();
  for (const run of runs) {
    for (const it of itemContexts(groupTrials(run.trials, fixtures), fixtures)) {
      const key = itemKey(it.item);
      const acc = sums.get(key) ?? { values: {}, ratios: {} };
      for (const [name, v] of Object.entries(itemValues(it))) {
        const a = (acc.values[name] ??= { sum: 0, n: 0 });
        if (v !== null) {
          a.sum += v;
          a.n += 1;
        }
      }
      for (const [name, r] of Object.entries(itemRatios(it))) {
        const a = (acc.ratios[name] ??= { num: 0, den: 0 });
        a.num += r.num;
        a.den += r.den;
      }
      sums.set(key, acc);
    }
  }
  return new Map(
    [...sums].map(([key, acc]) => [
      key,
      { values: Object.fromEntries(Object.entries(acc.values).map(([name, a]) => [name, a.n ? a.sum / a.n : null])), ratios: acc.ratios },
    ]),
  );
}

/**
 * Reduce one run, or several runs of one configuration pooled, to a snapshot: what a baseline
 * publishes and what a diff, gate, comparison or trend reads. Items pool every run's trials.
 */
export function buildSnapshot(input: SnapshotInput): Snapshot {
  const first = input.runs[0];
  if (first === undefined) throw new RangeError("buildSnapshot: at least one run");
  const manifest = first.manifest;
  const trials = poolTrials(input.runs.map((r) => r.trials));
  const values = runMeanValues(input.runs, input.fixtures);
  const items: SnapshotItem[] = groupTrials(trials, input.fixtures).map((group) => {
    const s = summarizeItem(group);
    return {
      suite: s.suite,
      item_id: s.item_id,
      item_hash: manifest.corpus.items[itemKey(s)] ?? s.item_hashes.join("+"),
      cluster: group.cluster,
      scheme: group.scheme,
      n_trials: s.n_trials,
      n_counted: s.n_counted,
      verdict_counts: s.verdict_counts,
      modal_verdict: s.modal_verdict,
      unanimous: s.unanimous,
      blocker_key_counts: s.blocker_keys,
      values: values.get(itemKey(s))?.values ?? {},
      ratios: values.get(itemKey(s))?.ratios ?? {},
    };
  });
  const canaries = input.runs.map((r) => r.manifest.canary?.ok ?? null);
  return {
    schema_version: SNAPSHOT_SCHEMA_VERSION,
    kind: "fieldtest-snapshot",
    name: input.name,
    runs: input.runs.map(({ manifest: m }) => ({
      run_id: m.run_id,
      config_hash: m.config_hash,
      seed: m.config.seed,
      started_at: m.started_at,
      git_sha: m.git.sha,
    })),
    corpus_hash: manifest.corpus.hash,
    gate_versions: gateVersions(manifest.gate_versions),
    canary_passed: canaries.includes(null) ? null : canaries.every((ok) => ok === true),
    decision_context: { planner: roleContext(manifest, "planner", trials), critic: roleContext(manifest, "critic", trials) },
    engine: manifest.config.engine
      ? { name: manifest.config.engine.name, version: manifest.config.engine.version, manifest_sha256: manifest.config.engine.manifest_sha256 }
      : null,
    reported_models: reportedModels(trials),
    loop: { mode: manifest.config.mode, max_rounds: manifest.config.maxRounds },
    trials_per_run: manifest.config.trials,
    trials_per_item: items.length ? Math.min(...items.map((i) => i.n_trials)) : null,
    error_trials: trials.filter((t) => t.status === "error").length,
    total_trials: trials.length,
    metrics: Object.fromEntries(Object.entries(input.metrics).map(([k, m]) => [k, metricOf(m)])),
    between_runs: betweenRuns(input.runs),
    items,
  };
}
