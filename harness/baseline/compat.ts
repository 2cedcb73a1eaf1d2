import type { Suite } from "../../src/formats/records.ts";
import { itemKey, type RoleContext, type Snapshot } from "../../src/formats/snapshot.ts";

/**
 * The kinds of recorded configuration difference (docs/design.md §11; methodology-notes §9.9). All but
 * `seed` and `trials` are causes: they can change what the model or the engine does. A seed
 * (the run's, or one sent to the provider) draws another sample from the same behaviour, and the
 * number of trials only changes how precisely it is seen; both are named, never causes.
 */
const DIFFERENCE_KINDS = [
  "engine",
  "provider",
  "model",
  "temperature",
  "sampling",
  "prompt",
  "schema",
  "sim_profile",
  "gate_version",
  "loop",
  "corpus",
  "corpus_item",
  "seed",
  "trials",
] as const;
type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

const NOT_CAUSES: ReadonlySet<DifferenceKind> = new Set(["seed", "trials"]);

export function isCause(d: Difference): boolean {
  return !NOT_CAUSES.has(d.kind);
}

/** One recorded difference between the baseline and the candidate configuration. */
export interface Difference {
  kind: DifferenceKind;
  /** What differs: `critic.temperature`, `gate_versions.ordering_sane`, `item corpus/db-split`. */
  part: string;
  /** The role whose calls it changes; null for gates and corpus items. */
  role: string | null;
  baseline: unknown;
  candidate: unknown;
}

const ROLE_FIELDS: [keyof RoleContext, DifferenceKind][] = [
  ["provider", "provider"],
  ["base_url", "provider"],
  ["model", "model"],
  ["temperature", "temperature"],
  ["top_p", "sampling"],
  ["seed", "seed"],
  ["max_tokens", "sampling"],
  ["system_prompt_sha256", "prompt"],
  ["user_template_sha256", "prompt"],
  ["schema_sha256", "schema"],
  ["sim_profile_sha256", "sim_profile"],
];

const seedsOf = (s: Snapshot) => s.runs.map((r) => r.seed);

/**
 * Run-level differences, every one named: the run seeds, every role's decision context, the loop
 * settings, the trials per run, every gate version, the corpus hash.
 */
export function configDifferences(b: Snapshot, a: Snapshot): Difference[] {
  const out: Difference[] = [];
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  if (!same(seedsOf(b), seedsOf(a))) {
    const show = (s: Snapshot) => (s.runs.length === 1 ? s.runs[0]!.seed : seedsOf(s));
    out.push({ kind: "seed", part: "run seed", role: null, baseline: show(b), candidate: show(a) });
  }
  // Another engine, or another version or manifest of one, can change every verdict.
  if (JSON.stringify(b.engine) !== JSON.stringify(a.engine)) out.push({ kind: "engine", part: "engine", role: null, baseline: b.engine, candidate: a.engine });
  const roles = [...new Set([...Object.keys(b.decision_context), ...Object.keys(a.decision_context)])].sort();
  for (const role of roles) {
    const cb = b.decision_context[role] ?? null;
    const ca = a.decision_context[role] ?? null;
    for (const [field, kind] of ROLE_FIELDS) {
      const vb = cb?.[field] ?? null;
      const va = ca?.[field] ?? null;
      if (vb !== va) out.push({ kind, part: `${role}.${field}`, role, baseline: vb, candidate: va });
    }
    // The same requested model answered by one the baseline never saw (an alias moved to a new
    // snapshot) is a model change, though nothing in the requests changed. A side that recorded
    // no reported model (an older baseline, a role never answered) has nothing to compare.
    const rb = b.reported_models[role] ?? [];
    const ra = a.reported_models[role] ?? [];
    if (rb.length > 0 && ra.some((m) => !rb.includes(m))) out.push({ kind: "model", part: `${role}.reported_model`, role, baseline: rb, candidate: ra });
  }
  for (const field of ["mode", "max_rounds"] as const) {
    if (b.loop[field] !== a.loop[field]) out.push({ kind: "loop", part: `loop.${field}`, role: "planner", baseline: b.loop[field], candidate: a.loop[field] });
  }
  if (b.trials_per_run !== a.trials_per_run)
    out.push({ kind: "trials", part: "trials per run", role: null, baseline: b.trials_per_run, candidate: a.trials_per_run });
  const gates = [...new Set([...Object.keys(b.gate_versions), ...Object.keys(a.gate_versions)])].sort();
  for (const gate of gates) {
    const vb = b.gate_versions[gate] ?? null;
    const va = a.gate_versions[gate] ?? null;
    if (vb !== va) out.push({ kind: "gate_version", part: `gate_versions.${gate}`, role: null, baseline: vb, candidate: va });
  }
  if (b.corpus_hash !== a.corpus_hash) {
    out.push({ kind: "corpus", part: "corpus_hash", role: null, baseline: b.corpus_hash, candidate: a.corpus_hash });
  }
  return out;
}

export interface Coverage {
  /** Items in both runs with the same content hash: compared as like for like. */
  paired: string[];
  /** Items in both runs whose content hash differs: compared, deltas attributed to the item change. */
  changed: string[];
  only_baseline: string[];
  only_candidate: string[];
}

export function coverage(b: Snapshot, a: Snapshot): Coverage {
  const bItems = new Map(b.items.map((i) => [itemKey(i), i]));
  const aItems = new Map(a.items.map((i) => [itemKey(i), i]));
  const out: Coverage = { paired: [], changed: [], only_baseline: [], only_candidate: [] };
  for (const [key, bi] of bItems) {
    const ai = aItems.get(key);
    if (!ai) out.only_baseline.push(key);
    else if (ai.item_hash === bi.item_hash) out.paired.push(key);
    else out.changed.push(key);
  }
  for (const key of aItems.keys()) if (!bItems.has(key)) out.only_candidate.push(key);
  for (const list of Object.values(out)) list.sort();
  return out;
}

/**
 * Roles whose calls decide an item's verdict: corpus goals run the whole loop (planner and
 * critic); boundary fixtures and imported trials are critic-only.
 */
function rolesFor(suite: Suite): readonly string[] {
  return suite === "corpus" ? ["planner", "critic"] : ["critic"];
}

/**
 * The recorded causes that can explain a delta on one item: the differences of the roles that
 * run on it (the loop settings count as the planner's: only corpus goals run the loop), any gate
 * version (gates run on every plan), another engine or engine version (it runs every item), and
 * the item's own content hash. A seed or a trial count is
 * never a cause, and a corpus-wide hash change alone explains nothing: only the items whose own
 * hash changed moved.
 */
export function causesForItem(differences: readonly Difference[], suite: Suite, baselineHash: string, candidateHash: string): Difference[] {
  const roles = rolesFor(suite);
  const out = differences.filter((d) => isCause(d) && (d.kind === "gate_version" || d.kind === "engine" || (d.role !== null && roles.includes(d.role))));
  if (baselineHash !== candidateHash) {
    out.push({ kind: "corpus_item", part: `item_hash`, role: null, baseline: baselineHash, candidate: candidateHash });
  }
  return out;
}

/**
 * Why runs cannot be pooled into one baseline: the first configuration difference (other than the
 * seed) of a run against the first run, or a repeated run or seed (a repeat adds no new sample).
 * null when they pool.
 */
export function poolingProblem(runs: readonly Snapshot[]): { index: number; part: string; message: string } | null {
  const first = runs[0];
  if (first === undefined) return null;
  for (let i = 1; i < runs.length; i++) {
    const r = runs[i]!;
    const d = configDifferences(first, r).find((x) => x.kind !== "seed");
    if (d)
      return {
        index: i,
        part: d.part,
        message: `is ${JSON.stringify(d.candidate)} but ${JSON.stringify(d.baseline)} in the first run: a baseline pools runs of one configuration`,
      };
    const cov = coverage(first, r);
    if (cov.changed.length + cov.only_baseline.length + cov.only_candidate.length > 0)
      return { index: i, part: "items", message: "the runs cover different items (or item versions): a baseline pools runs of one corpus selection" };
    const earlier = runs.slice(0, i);
    if (earlier.some((e) => e.runs[0]!.run_id === r.runs[0]!.run_id)) return { index: i, part: "run_id", message: "is given twice" };
    const sim = Object.values(r.decision_context).some((c) => c?.provider === "sim");
    if (sim && earlier.some((e) => e.runs[0]!.seed === r.runs[0]!.seed))
      return {
        index: i,
        part: "config.seed",
        message: `${r.runs[0]!.seed} is the seed of an earlier run: the sim repeats its draws for a seed, so it adds no independent sample`,
      };
  }
  return null;
}
