import type { Category } from "../../src/formats/enums.ts";
import { trialKey, type TrialRecord } from "../../src/formats/records.ts";
import { RUN_SUITES, type RunSuite } from "../../src/formats/run-config.ts";

/** What a sweep runs unless told otherwise: the security oracle and the injection traps are asked for by name. */
export const DEFAULT_SUITES: readonly RunSuite[] = ["corpus", "boundary"];

/** One corpus goal or boundary fixture, as the planner of work sees it. */
export interface WorkItem {
  suite: RunSuite;
  item_id: string;
  domain: string;
  /** Corpus goals only; boundary fixtures have none. */
  category: Category | null;
  /** Content hash of the item file (manifest `corpus.items`). */
  item_hash: string;
}

export interface Selection {
  suites: readonly RunSuite[];
  /** Id globs matched against `<id>` and `<suite>/<id>`; null selects every id. */
  only: readonly string[] | null;
  domain: readonly string[] | null;
  /** Corpus goals only: a category filter leaves out every fixture. */
  category: readonly Category[] | null;
}

export interface TrialWork {
  key: string;
  suite: RunSuite;
  item_id: string;
  trial: number;
}

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** `*` (no slash), `**` (anything), `?` (one char) and `{a,b}` alternatives; matched on the whole string. */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        out += ".*";
        i++;
      } else out += "[^/]*";
    } else if (c === "?") out += "[^/]";
    else if (c === "{") {
      out += "(?:";
      depth++;
    } else if (c === "}" && depth > 0) {
      out += ")";
      depth--;
    } else if (c === "," && depth > 0) out += "|";
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}${")".repeat(depth)}$`);
}

/**
 * The injection suite is its generated traps and the corpus's adversarial goals (which run as
 * corpus trials, so they stay comparable with every other run of them).
 */
const inSuites = (it: WorkItem, suites: readonly RunSuite[]) =>
  suites.includes(it.suite) || (it.suite === "corpus" && it.category === "adversarial" && suites.includes("injection"));

export function selectItems(items: readonly WorkItem[], selection: Selection): WorkItem[] {
  const globs = selection.only?.map(globToRegExp) ?? null;
  return items.filter(
    (it) =>
      inSuites(it, selection.suites) &&
      (globs === null || globs.some((g) => g.test(it.item_id) || g.test(`${it.suite}/${it.item_id}`))) &&
      (selection.domain === null || selection.domain.includes(it.domain)) &&
      (selection.category === null || (it.category !== null && selection.category.includes(it.category))),
  );
}

type TrialCoordinates = Pick<TrialRecord, "item_id" | "trial"> & { suite: string };

/** Total order on trial keys: suite (in RUN_SUITES order), item id, trial index numerically. */
export function compareTrials(a: TrialCoordinates, b: TrialCoordinates): number {
  const sa = (RUN_SUITES as readonly string[]).indexOf(a.suite);
  const sb = (RUN_SUITES as readonly string[]).indexOf(b.suite);
  if (sa !== sb) return sa - sb;
  if (a.item_id !== b.item_id) return a.item_id < b.item_id ? -1 : 1;
  return a.trial - b.trial;
}

/** Every (suite, item, trial) of the selection, in key order. */
export function planTrials(items: readonly Pick<WorkItem, "suite" | "item_id">[], trials: number): TrialWork[] {
  const out: TrialWork[] = [];
  for (const it of items) {
    for (let t = 0; t < trials; t++) out.push({ key: trialKey({ ...it, trial: t }), suite: it.suite, item_id: it.item_id, trial: t });
  }
  return out.sort(compareTrials);
}

/**
 * Round-robin over the sorted keys: shard i of n takes positions i-1, i-1+n, ... Deterministic,
 * balanced to within one trial, and every item's trials spread over the shards.
 */
export function shardTrials(plan: readonly TrialWork[], shard: Shard | null): TrialWork[] {
  if (shard === null) return [...plan];
  return [...plan].sort(compareTrials).filter((_, i) => i % shard.count === shard.index - 1);
}

/** What a (resumed) run still has to do: planned keys without a record, plus errored ones when asked. */
export function pendingTrials(
  plan: readonly TrialWork[],
  recorded: readonly Pick<TrialRecord, "suite" | "item_id" | "trial" | "status">[],
  retryErrors: boolean,
): TrialWork[] {
  const done = new Set(recorded.filter((r) => !(retryErrors && r.status === "error")).map(trialKey));
  return plan.filter((t) => !done.has(t.key));
}

export function parseShard(text: string): Shard | null {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) return null;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return count >= 1 && index >= 1 && index <= count ? { index, count } : null;
}
