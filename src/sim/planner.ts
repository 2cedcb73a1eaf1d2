import { canonicalJson, deepFreeze, hashCanonical } from "../canonical.ts";
import type { Goal } from "../formats/goal.ts";
import { PlanSchema, type Plan, type PlanInput } from "../formats/plan.ts";
import { chance, pickIndex, type Rng } from "../stats/random.ts";
import type { SimExtra } from "./extra.ts";
import { PLANNER_DEFECTS, type PlannerDefect, type SimProfile } from "./profile.ts";

/** The words a domain uses for its three core steps; the fallback is built from the domain name. */
interface Vocabulary {
  snapshot: string;
  apply: string;
  verify: string;
}

/** A Map, not an object literal: a domain named like an Object.prototype key ("constructor") must find nothing. */
const DOMAIN_VOCABULARY = new Map<string, Vocabulary>(
  Object.entries({
    database: { snapshot: "snapshot_database", apply: "migrate_schema", verify: "verify_migration" },
    kubernetes: { snapshot: "export_manifests", apply: "roll_out_deployment", verify: "verify_rollout" },
    network: { snapshot: "save_running_config", apply: "apply_route_change", verify: "verify_routes" },
    dns: { snapshot: "export_zone", apply: "update_records", verify: "verify_resolution" },
    storage: { snapshot: "snapshot_volumes", apply: "migrate_volumes", verify: "verify_checksums" },
    security: { snapshot: "export_policies", apply: "rotate_credentials", verify: "verify_access" },
    cdn: { snapshot: "export_cdn_config", apply: "switch_origin", verify: "verify_edge_responses" },
    search: { snapshot: "snapshot_index", apply: "reindex_documents", verify: "verify_index_quality" },
  }),
);

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "") || "system"
  );
}

function vocabularyOf(domain: string): Vocabulary {
  const d = slug(domain);
  return DOMAIN_VOCABULARY.get(d) ?? { snapshot: `snapshot_${d}`, apply: `apply_${d}_change`, verify: `verify_${d}_change` };
}

/** The fact the unverified-dependency defect makes the mutation wait for, which no task establishes. */
function approvalFact(goal: Goal): string {
  return `${slug(goal.id)}_change_approved`;
}

/** One of the goal's own steps, carried as a low-risk task that changes nothing. */
interface GoalStep {
  id: string;
  description: string;
  kind: "read" | "notify" | "wait";
}

/** At most this many goal steps; the clauses past the last one stay in its description. */
export const MAX_GOAL_STEPS = 10;

/**
 * Where the goal's prose splits into clauses: after a sentence end (. ! ? or ;) followed by white
 * space, and at a comma that starts a new action (", then", ", and then", ", and"). The separator
 * words are dropped; a clause keeps its text otherwise.
 */
const CLAUSE_SEPARATOR = /(?<=[.!?;]) |, (?:and then|then|and) /gi;

/** A clause worth a step has a letter or a digit. */
const HAS_CONTENT = /[\p{L}\p{N}]/u;

/** Kind of a goal step by the words in it: telling people is notify, a watch or a timed hold is wait, anything else read. */
const NOTIFY_WORDS = /\b(?:announce|notify|inform|tell|warn|email|e-mail|communicate|ask)\b/i;
const WAIT_WORDS = /\b(?:wait|soak|watch|observe|monitor|bake)\b|\bfor (?:a|an|one|two|three|\d+) (?:minute|hour|day|week|month|cycle)s?\b/i;

function stepKind(clause: string): GoalStep["kind"] {
  if (NOTIFY_WORDS.test(clause)) return "notify";
  if (WAIT_WORDS.test(clause)) return "wait";
  return "read";
}

/**
 * The clauses of a goal description, in order: white space collapsed, split at CLAUSE_SEPARATOR,
 * trailing punctuation and clauses without a letter or digit dropped. Each clause is a substring
 * of the collapsed description; past MAX_GOAL_STEPS the last clause runs to the end of the text.
 */
export function goalClauses(description: string): string[] {
  const text = description.replace(/\s+/g, " ").trim();
  const spans: [number, number][] = [];
  let start = 0;
  for (const m of text.matchAll(CLAUSE_SEPARATOR)) {
    spans.push([start, m.index]);
    start = m.index + m[0].length;
  }
  spans.push([start, text.length]);
  const kept = spans.filter(([a, b]) => HAS_CONTENT.test(text.slice(a, b)));
  if (kept.length > MAX_GOAL_STEPS) kept.splice(MAX_GOAL_STEPS - 1, kept.length, [kept[MAX_GOAL_STEPS - 1]![0], kept.at(-1)![1]]);
  return kept.map(([a, b]) => text.slice(a, b).replace(/[\s.,;:!?]+$/u, ""));
}

/**
 * The goal's own steps, read from its description the way a planner reads the goal it is asked to
 * plan: one task per clause (`step_1`, `step_2`, ...), its description the clause. Pure, so the
 * same goal always gives the same steps. Never anything but the goal's text: no expectation.
 */
export function goalSteps(goal: Goal): GoalStep[] {
  return goalClauses(goal.description).map((clause, i) => ({ id: `step_${i + 1}`, description: clause, kind: stepKind(clause) }));
}

/**
 * The sim planner's template for a goal: a snapshot, a pre-state check, the given goal steps, the
 * mutation with a credible rollback, an output check and a notification. The steps are low-risk
 * tasks that change nothing, chained by hard edges from the snapshot to the mutation, so they can
 * move no gate. With no defect the plan passes every gate; each defect breaks exactly one gate code:
 * - unverified_dependencies: the mutation needs an approval fact no task establishes (precondition_unestablished);
 * - unsafe_sequencing: the pre-state check runs after the mutation (verification_reads_stale_state);
 * - weak_rollback: the high-risk mutation has no rollback (rollback_missing).
 * Without steps (the default) it is the bare five-task template that test fixtures build on.
 */
export function templatePlan(goal: Goal, defects: ReadonlySet<PlannerDefect>, version: number, parentId: string | null, steps: readonly GoalStep[] = []): Plan {
  const v = vocabularyOf(goal.domain);
  const target = slug(goal.id).replace(/_/g, "-");
  const snapshotFact = `${v.snapshot}_done`;
  const verifiedFact = `${v.verify}_passed`;
  const report = `${target}.change_report`;
  const snapshot = {
    id: v.snapshot,
    description: `Take a snapshot (backup) of ${target} before the change: ${goal.title}`,
    kind: "read",
    target,
    risk: "low",
    preconditions: goal.constraints.facts.map((fact) => ({ fact, established_by: "env" })),
    establishes: [snapshotFact],
    produces: [`${target}.snapshot`],
  };
  const preCheck = {
    id: `check_${v.apply}_pre_state`,
    description: `Pre-check: confirm ${target} is in the expected state before the cutover`,
    kind: "verify",
    verifies: { task: v.apply, subject: "pre_state", reads: [`${target}.snapshot`] },
  };
  const apply = {
    id: v.apply,
    description: `Cutover: ${goal.title}`,
    kind: "mutate",
    target,
    risk: "high",
    preconditions: [{ fact: snapshotFact, established_by: v.snapshot }, ...(defects.has("unverified_dependencies") ? [{ fact: approvalFact(goal) }] : [])],
    mutates: [target],
    produces: [report],
    ...(defects.has("weak_rollback")
      ? {}
      : { rollback: { trigger: v.verify, action: `Restore ${target} from the snapshot`, requires: [snapshotFact], restores: [target] } }),
  };
  const verify = {
    id: v.verify,
    description: `Verify the change report of ${target}`,
    kind: "verify",
    verifies: { task: v.apply, subject: "mutation_output", reads: [report] },
    establishes: [verifiedFact],
  };
  const notify = {
    id: "notify_owners",
    description: `Notify the owners of ${target} that the change is complete`,
    kind: "notify",
    preconditions: [{ fact: verifiedFact, established_by: v.verify }],
  };
  const stepTasks = steps.map((s) => ({ id: s.id, description: s.description, kind: s.kind, target, risk: "low", blast_radius: "low" }));
  const tasks = defects.has("unsafe_sequencing")
    ? [snapshot, ...stepTasks, apply, preCheck, verify, notify]
    : [snapshot, preCheck, ...stepTasks, apply, verify, notify];
  const chain = steps.length > 0 ? [v.snapshot, ...steps.map((s) => s.id), v.apply] : [];
  const input: PlanInput = {
    id: `plan-${goal.id}-r${version}`,
    goal_id: goal.id,
    version,
    parent_id: parentId,
    tasks: tasks as PlanInput["tasks"],
    dependencies: [
      { from: v.snapshot, to: v.apply, kind: "hard" },
      ...chain.slice(1).map((to, i) => ({ from: chain[i]!, to, kind: "hard" as const })),
      { from: preCheck.id, to: v.apply, kind: "soft" },
      { from: v.apply, to: v.verify, kind: "hard" },
      { from: v.verify, to: "notify_owners", kind: "hard" },
    ],
  };
  return PlanSchema.parse(input);
}

/**
 * A plan's structure (tasks and dependencies) as the SHA-256 of its canonical JSON: equal for equal
 * structures, and 64 characters to keep in the memo below instead of the whole plan's JSON.
 */
const structure = (p: Plan) => hashCanonical({ tasks: p.tasks, dependencies: p.dependencies });

function allDefectSets(): PlannerDefect[][] {
  return PLANNER_DEFECTS.reduce<PlannerDefect[][]>((sets, d) => [...sets, ...sets.map((s) => [...s, d])], [[]]);
}

/**
 * The sim planner's plan for a goal: the template with the goal's own steps. Memoized, deeply
 * frozen: every trial of a goal drafts the same few plans, and validating one is most of its cost.
 */
export function draftPlan(goal: Goal, defects: ReadonlySet<PlannerDefect>, version: number, parentId: string | null): Plan {
  const view = plannerViewKey(goal);
  const set = PLANNER_DEFECTS.filter((d) => defects.has(d));
  const key = `${view}\u0000${set.join(",")}\u0000${version}\u0000${JSON.stringify(parentId)}`;
  let plan = draftsByKey.get(key);
  if (!plan) {
    plan = deepFreeze(templatePlan(goal, defects, version, parentId, goalSteps(goal)));
    if (draftsByKey.size >= MAX_MEMOIZED_DRAFTS) {
      draftsByKey.clear();
      draftedByGoal.clear();
    }
    draftsByKey.set(key, plan);
    rememberDraft(view, set, plan);
  }
  return plan;
}

const draftsByKey = new Map<string, Plan>();
const MAX_MEMOIZED_DRAFTS = 4096;

/**
 * The defect sets of a goal's drafts so far, by structure: a revision of the sim's own plan (the
 * usual case) finds its defects here instead of building every template of the goal. Exact, since
 * no two defect sets give one structure (each defect changes the mutation task or the task order).
 * A draft's structure does not depend on its version or parent, so each set is hashed once.
 */
const draftedByGoal = new Map<string, { sets: Set<string>; byStructure: Map<string, PlannerDefect[]> }>();

function rememberDraft(view: string, set: PlannerDefect[], plan: Plan): void {
  let drafted = draftedByGoal.get(view);
  if (!drafted) draftedByGoal.set(view, (drafted = { sets: new Set(), byStructure: new Map() }));
  const name = set.join(",");
  if (drafted.sets.has(name)) return;
  drafted.sets.add(name);
  drafted.byStructure.set(structure(plan), set);
}

/** What the planner reads of a goal, nothing else (a corpus goal's expect block least of all), as a key. */
const plannerViewKey = ({ id, domain, title, description, constraints }: Goal): string =>
  canonicalJson({ id, domain, title, description, facts: constraints.facts });

/**
 * Which template defects a plan carries, or null when it is not a template plan (a real model's,
 * or one a repair moved): then the sim trusts the findings it was handed. Both the planner's
 * drafts (with the goal's steps) and the bare template are recognized.
 */
export function detectDefects(goal: Goal, plan: Plan): Set<PlannerDefect> | null {
  const hash = structure(plan);
  const match = draftedByGoal.get(plannerViewKey(goal))?.byStructure.get(hash) ?? templateStructures(goal).get(hash);
  return match ? new Set(match) : null;
}

/** Structure hash of each defect set's template for a goal, memoized: revisions ask for the same goal again and again. */
const structuresByGoal = new Map<string, Map<string, PlannerDefect[]>>();
const MAX_MEMOIZED_GOALS = 512;

function templateStructures(goal: Goal): Map<string, PlannerDefect[]> {
  const key = plannerViewKey(goal);
  let structures = structuresByGoal.get(key);
  if (!structures) {
    structures = new Map(
      allDefectSets().flatMap((set) => [
        [structure(templatePlan(goal, new Set(set), 1, null)), set] as const,
        [structure(draftPlan(goal, new Set(set), 1, null)), set] as const,
      ]),
    );
    if (structuresByGoal.size >= MAX_MEMOIZED_GOALS) structuresByGoal.clear();
    structuresByGoal.set(key, structures);
  }
  return structures;
}

/**
 * The sim planner's answer, always a draft with the goal's steps (a revision keeps them, since it
 * re-reads the same goal). A fresh plan (decompose, restart) draws each defect at its profile
 * rate. A revision fixes each flagged defect with probability fix_rate and, with probability
 * regression_rate, introduces one defect it does not carry (possibly one fixed in an earlier round).
 * Every draw is made whatever its outcome, so the stream positions stay fixed.
 */
export function simPlannerOutput(extra: SimExtra, rng: Rng, profile: SimProfile["planner"]): Plan {
  const { goal, plan: previous } = extra;
  const version = previous ? previous.version + 1 : 1;
  const parentId = previous?.id ?? null;
  if (extra.mode !== "revise" || !previous) {
    const drawn = PLANNER_DEFECTS.filter((d) => chance(rng, profile.defect_rate[d]));
    return draftPlan(goal, new Set(drawn), version, parentId);
  }
  const flagged = new Set((extra.findings ?? []).map((f) => f.family));
  const carried = detectDefects(goal, previous) ?? new Set(PLANNER_DEFECTS.filter((d) => flagged.has(d)));
  const next = new Set<PlannerDefect>();
  const fixedNow = new Set<PlannerDefect>();
  for (const d of PLANNER_DEFECTS) {
    const fixed = chance(rng, profile.fix_rate);
    if (!carried.has(d)) continue;
    if (flagged.has(d) && fixed) fixedNow.add(d);
    else next.add(d);
  }
  const regress = chance(rng, profile.regression_rate);
  // A regression brings in a defect the plan does not carry; one fixed in this very revision stays fixed.
  const absent = PLANNER_DEFECTS.filter((d) => !next.has(d) && !fixedNow.has(d));
  const pick = pickIndex(rng, Math.max(absent.length, 1));
  if (regress && absent.length > 0) next.add(absent[pick]!);
  return draftPlan(goal, next, version, parentId);
}
