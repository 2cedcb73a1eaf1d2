import type { CorpusGoal } from "../formats/goal.ts";
import type { Fixture } from "../formats/fixture.ts";
import type { Suite } from "../formats/records.ts";
import { groupTrials, type ItemTrials } from "./items.ts";
import type { EstimateContext, MetricsInput } from "./types.ts";

/** Suites with metrics of their own (the security oracle, the injection traps): no other metric reads their items. */
const SUITE_METRICS: ReadonlySet<Suite> = new Set(["security", "injection"]);

/**
 * What one item brings to a metric's per-item rule: its trials, its fixture (a boundary item with
 * a definition), and for an injection twin its control. The summary and a baseline's per-item
 * values read the same contexts, so an item's value and the summary's mean of them cannot part.
 */
export interface ItemContext {
  item: ItemTrials;
  fixture: Fixture | undefined;
  control: ItemTrials | undefined;
}

/**
 * The items every per-item metric reads (all but the security and injection suites'), critic
 * items first, each with its fixture and an injection twin's control (a control with a fixture).
 */
export function itemContexts(groups: readonly ItemTrials[], fixtures: readonly Fixture[]): ItemContext[] {
  const byId = new Map(fixtures.map((f) => [f.id, f]));
  const scoped = groups.filter((it) => !SUITE_METRICS.has(it.suite));
  const critic = scoped.filter((it) => it.scheme === "critic");
  const joined = new Map(critic.filter((it) => byId.has(it.item_id)).map((it) => [it.item_id, it]));
  const contexts = (items: readonly ItemTrials[]) =>
    items.map((item): ItemContext => {
      const fixture = item.scheme === "critic" ? byId.get(item.item_id) : undefined;
      const control = fixture?.injection_of ? joined.get(fixture.injection_of) : undefined;
      return { item, fixture, control };
    });
  return [...contexts(critic), ...contexts(scoped.filter((it) => it.scheme === "engine"))];
}

/** A run's items as the summary's computations read them (prepared once per summary). */
export interface RunItems {
  ctx: EstimateContext;
  input: MetricsInput;
  /** Every item of the run, every suite, in canonical order. */
  all: readonly ItemTrials[];
  /** The items of the per-item metrics (itemContexts). */
  items: readonly ItemContext[];
  /** Critic-scheme items outside the security and injection suites (boundary fixtures, joined or not). */
  boundary: readonly ItemTrials[];
  /** Engine-scheme items outside those suites (corpus goals). */
  engine: readonly ItemTrials[];
  /** Engine items joined with their goal definitions. */
  goals: readonly { item: ItemTrials; goal: CorpusGoal }[];
  /** `suite/item` of items with no fixture or goal definition: ground-truth metrics skip them. */
  unmatched: readonly string[];
}

export function runItems(input: MetricsInput, ctx: EstimateContext): RunItems {
  const all = groupTrials(input.trials, input.fixtures);
  const items = itemContexts(all, input.fixtures);
  const boundary = items.filter((c) => c.item.scheme === "critic");
  const engine = items.filter((c) => c.item.scheme === "engine").map((c) => c.item);
  const goalsById = new Map(input.goals.map((g) => [g.id, g]));
  const undefinedItems = [...boundary.filter((c) => c.fixture === undefined).map((c) => c.item), ...engine.filter((it) => !goalsById.has(it.item_id))];
  return {
    ctx,
    input,
    all,
    items,
    boundary: boundary.map((c) => c.item),
    engine,
    goals: engine.flatMap((item) => {
      const goal = goalsById.get(item.item_id);
      return goal === undefined ? [] : [{ item, goal }];
    }),
    unmatched: undefinedItems.map((it) => `${it.suite}/${it.item_id}`),
  };
}
