import type { EngineMode } from "../../../src/loop/engine.ts";
import type { PredecessorGoal } from "./schema.ts";

/**
 * The predecessor's field-test dimensions that ran its engine (predecessor-notes.md §5.6,
 * Appendix A), each with the settings it ran under, so every dimension imports as a run of its
 * own. Pure: a trace's `dimension` and where it sits decide everything.
 */

/** Its critique modes as fieldtest's `--mode` (§3.5): when the critic runs. */
export const CRITIQUE_MODES: Record<string, EngineMode> = {
  "deterministic-first": "gates-first",
  "llm-every-revision": "every-round",
  "heuristic-only": "gates-only",
};

/** The predecessor's LoopConfig defaults (mode deterministic-first, revision cap 4). */
export const PREDECESSOR_MODE = "deterministic-first";
export const PREDECESSOR_DEFAULT_CAP = 4;

/** In the order the predecessor's run_replan ran them, through one logging planner. */
const REPLAN_POLICIES = ["patch", "restart", "abort"] as const;

export interface EngineDimension {
  /** The run's dimension: `core-api`, `critique-modes/<mode>`, `budget`, `replan/<policy>`. */
  name: string;
  /** The folder under the sweep root the trace sits in, and how many folders below it (goal, then mode or policy). */
  folder: string;
  depth: 2 | 3;
  /** The predecessor's critique mode; null: the sweep's own loop_config.mode. */
  critiqueMode: string | null;
  /** The revision cap it ran with (the predecessor counted rounds); null: the sweep's own. */
  cap: number | null;
  /** The replan policy the dimension set on the goal; null: the goal's own. */
  replanPolicy: string | null;
  /** The goal as the dimension rebuilt it before running it. */
  goal: (g: PredecessorGoal) => PredecessorGoal;
  /** Why the goal differs from its file, for the conversion notes; null when it does not. */
  goalNote: string | null;
  /** Where the variant ran among its goal's variants (replan: patch, restart, abort), for variants that shared one log. */
  sequence: number;
}

const asIs = (g: PredecessorGoal) => g;

/**
 * The engine dimension a trace belongs to, or null for the dimensions that never ran the engine
 * (store, escalation, explain, viz, complexity, probes, adapters, the CLI and HTTP surfaces) and
 * for the `replan` summary, which restates its three `replan-<policy>` children.
 */
export function engineDimension(dimension: string): EngineDimension | null {
  if (dimension === "core-api")
    return { name: "core-api", folder: "core-api", depth: 2, critiqueMode: null, cap: null, replanPolicy: null, goal: asIs, goalNote: null, sequence: 0 };
  const critique = /^critique-(.+)$/.exec(dimension)?.[1];
  if (critique !== undefined && critique in CRITIQUE_MODES)
    return {
      name: `critique-modes/${critique}`,
      folder: "critique-modes",
      depth: 3,
      critiqueMode: critique,
      cap: 3,
      replanPolicy: null,
      goal: asIs,
      goalNote: null,
      sequence: 0,
    };
  if (dimension === "budget")
    return {
      name: "budget",
      folder: "budget",
      depth: 2,
      critiqueMode: PREDECESSOR_MODE,
      cap: 1,
      replanPolicy: "abort",
      goal: (g) => ({ ...g, replan_policy: "abort", constraints: { ...g.constraints, budget: { max_revisions: 1 } } }),
      goalNote: "the budget dimension ran the goal rebuilt with max_revisions 1 and replan_policy abort, under a revision cap of 1",
      sequence: 0,
    };
  const policy = /^replan-(.+)$/.exec(dimension)?.[1];
  const known = REPLAN_POLICIES.find((p) => p === policy);
  if (known !== undefined)
    return {
      name: `replan/${known}`,
      folder: "replan",
      depth: 3,
      critiqueMode: PREDECESSOR_MODE,
      cap: 2,
      replanPolicy: known,
      goal: (g) => ({ ...g, replan_policy: known }),
      goalNote: `the replan dimension ran the goal with replan_policy ${known}, under a revision cap of 2`,
      sequence: REPLAN_POLICIES.indexOf(known),
    };
  return null;
}

/** The dimension a trace in each engine dimension's folder names (depth 3: from the variant's folder). */
const FOLDER_DIMENSIONS: Record<string, (variant: string) => string> = {
  "core-api": () => "core-api",
  budget: () => "budget",
  "critique-modes": (mode) => `critique-${mode}`,
  replan: (policy) => `replan-${policy}`,
};

/**
 * The engine dimension of a goal's folder that holds no trace.json, from where it sits:
 * `<dimension folder>/<goal>` or `<dimension folder>/<goal>/<variant>`; null anywhere else.
 */
export function dimensionOfFolder(dir: string): EngineDimension | null {
  const [last, parent, grandparent] = dir.split(/[\\/]/).reverse();
  for (const [folder, depth] of [
    [parent, 2],
    [grandparent, 3],
  ] as const) {
    const dimension = folder !== undefined && Object.hasOwn(FOLDER_DIMENSIONS, folder) ? engineDimension(FOLDER_DIMENSIONS[folder]!(last!)) : null;
    if (dimension !== null && dimension.depth === depth) return dimension;
  }
  return null;
}
