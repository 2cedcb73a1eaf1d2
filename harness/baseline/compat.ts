import type { Suite } from "../../src/formats/records.ts";
import { itemKey, type RoleContext, type Snapshot } from "./schema.ts";

/** The recorded causes a delta can be attributed to (DESIGN.md §9; methodology-notes §9.9). */
export const CAUSE_KINDS = [
  "provider",
  "model",
  "temperature",
  "sampling",
  "prompt",
  "schema",
  "gate_version",
  "corpus",
  "corpus_item",
] as const;
export type CauseKind = (typeof CAUSE_KINDS)[number];

/** One recorded difference between the baseline and the candidate configuration. */
export interface Difference {
  kind: CauseKind;
  /** What differs: `critic.temperature`, `gate_versions.ordering_sane`, `item corpus/db-split`. */
  part: string;
  /** The role whose calls it changes; null for gates and corpus items. */
  role: string | null;
  baseline: unknown;
  candidate: unknown;
}

const ROLE_FIELDS: [keyof RoleContext, CauseKind][] = [
  ["provider", "provider"],
  ["base_url", "provider"],
  ["model", "model"],
  ["temperature", "temperature"],
  ["top_p", "sampling"],
  ["seed", "sampling"],
  ["max_tokens", "sampling"],
  ["system_prompt_sha256", "prompt"],
  ["user_template_sha256", "prompt"],
  ["schema_sha256", "schema"],
  ["sim_profile_sha256", "model"],
];

/** Run-level differences: every role's decision context, every gate version, the corpus hash. */
export function configDifferences(b: Snapshot, a: Snapshot): Difference[] {
  const out: Difference[] = [];
  const roles = [...new Set([...Object.keys(b.decision_context), ...Object.keys(a.decision_context)])].sort();
  for (const role of roles) {
    const cb = b.decision_context[role] ?? null;
    const ca = a.decision_context[role] ?? null;
    for (const [field, kind] of ROLE_FIELDS) {
      const vb = cb?.[field] ?? null;
      const va = ca?.[field] ?? null;
      if (vb !== va) out.push({ kind, part: `${role}.${field}`, role, baseline: vb, candidate: va });
    }
  }
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
export function rolesFor(suite: Suite): readonly string[] {
  return suite === "corpus" ? ["planner", "critic"] : ["critic"];
}

/**
 * The recorded causes that can explain a delta on one item: the differences of the roles that
 * run on it, any gate version (gates run on every plan), and the item's own content hash. A
 * corpus-wide hash change alone explains nothing: only the items whose own hash changed moved.
 */
export function causesForItem(
  differences: readonly Difference[],
  suite: Suite,
  baselineHash: string,
  candidateHash: string,
): Difference[] {
  const roles = rolesFor(suite);
  const out = differences.filter((d) => d.kind === "gate_version" || (d.role !== null && roles.includes(d.role)));
  if (baselineHash !== candidateHash) {
    out.push({ kind: "corpus_item", part: `item_hash`, role: null, baseline: baselineHash, candidate: candidateHash });
  }
  return out;
}
