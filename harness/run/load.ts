import type { Fixture } from "../../src/formats/fixture.ts";
import type { CorpusGoal } from "../../src/formats/goal.ts";
import type { TrialRecord } from "../../src/formats/records.ts";
import { summarize, type Summary } from "../../src/metrics/summary.ts";
import { fixtureItemKey, goalItemKey, loadCorpus } from "../corpus/load.ts";
import { readManifest } from "./manifest.ts";
import { readSpend, runSpend } from "./journal.ts";
import { lockIsHeld } from "./lock.ts";
import { resumeCommand } from "./resume-command.ts";
import { isRuleErrorFinding } from "../../src/packs/evaluate.ts";
import { IMPORTED_SUITE } from "../../src/formats/run-config.ts";
import { duplicatesWarning, readTrialLog, RUN_FILES } from "./store.ts";
import type { RunSpend } from "../../src/formats/summary.ts";
import type { Manifest, RunState } from "../../src/formats/manifest.ts";

/** A run directory read back with the corpus definitions it was run on, and its summary. */
export interface LoadedRun {
  dir: string;
  manifest: Manifest;
  trials: TrialRecord[];
  fixtures: Fixture[];
  goals: CorpusGoal[];
  summary: Summary;
  /** What the run spent, from its spend journal (per session, killed ones included); null without one (an imported run). */
  spend: RunSpend | null;
  /** When the run's trials are only a part of what it planned: what part, and what makes it whole (see incompleteness). */
  partial: RunPart | null;
  /** Why some numbers may not mean what they say (a corpus that changed since the run). */
  warnings: string[];
}

/** A run that is only a part: what part it is, and what would make it whole (null: nothing can). */
interface RunPart {
  what: string;
  then: string | null;
}

/**
 * Read a run (manifest, trials) and the corpus at `corpusRoot` (an imported run: its own goals). Ground truth is taken only from
 * items whose content hash equals the one the run recorded: an item edited since the run is
 * left out of the ground-truth metrics (it shows in `counts.unmatched_items`) and named in a
 * warning, rather than judged against a definition it was not run on.
 */
export function loadRun(dir: string, corpusRoot = "corpus"): LoadedRun {
  const manifest = readManifest(dir);
  const log = readTrialLog(dir);
  const trials = log.records;
  // An imported run carries the goals it was recorded on (DIR/goals): those are its ground truth.
  const corpus = loadCorpus(manifest.config.suites[0] === IMPORTED_SUITE ? dir : corpusRoot);
  const recorded = manifest.corpus.items;
  const hashes = { ...corpus.itemHashes, ...corpus.suiteItemHashes };
  const same = (key: string) => recorded[key] === undefined || recorded[key] === hashes[key];
  const fixtures = corpus.fixtures.map((f) => f.fixture).filter((f) => same(fixtureItemKey(f.id)));
  const goals = corpus.goals.map((g) => g.goal).filter((g) => same(goalItemKey(g.id)));
  const warnings: string[] = [];
  if (!log.found) warnings.push(`${RUN_FILES.trials} is missing: the run has no trial record to read`);
  if (log.duplicates.length > 0) warnings.push(duplicatesWarning(log.duplicates));
  // A crash mid-write can leave the last line torn (the next writer cuts it off; a v1 run's writer
  // went on after it, so there it may be anywhere); it is never data.
  if (log.torn > 0) warnings.push(`${log.torn} line(s) of trials.jsonl are not complete JSON (torn writes) and were skipped`);
  const partial = incompleteness(dir, manifest, trials.length);
  if (partial !== null) warnings.push(partialText(partial));
  for (const [rule, n] of packRuleErrors(trials)) {
    warnings.push(
      `${rule} could not be judged in ${n} trial(s): it blocked them, fail closed, so their escalations are the rule's, not the model's; fix the rule (fieldtest canary --pack DIR)`,
    );
  }
  const changed = Object.keys(recorded).filter((k) => hashes[k] !== undefined && !same(k));
  if (changed.length > 0) {
    warnings.push(
      `${changed.length} corpus item(s) changed since the run (${changed.slice(0, 5).join(", ")}${changed.length > 5 ? ", ..." : ""}): left out of ground-truth metrics`,
    );
  }
  const security = corpus.security.filter((s) => same(`security/${s.id}`)).map(({ id, kind, cwe, catches }) => ({ id, kind, cwe, catches }));
  const injection = corpus.injection.filter((i) => same(`injection/${i.id}`)).map(({ id, control, kind, field }) => ({ id, control, kind, field }));
  const summary = summarize({ trials, fixtures, goals, security, injection }, { seed: manifest.config.seed });
  const journal = readSpend(dir);
  const spend = journal.journaled ? runSpend(manifest.sessions, journal.tally) : null;
  return { dir, manifest, trials, fixtures, goals, summary, spend, partial, warnings };
}

const STATE_WORDS: Record<RunState | "crashed", string> = {
  running: "still running",
  crashed: "stopped (it crashed or was killed)",
  interrupted: "interrupted",
  budget_stopped: "stopped by its budget",
  canary_failed: "stopped by a failed canary",
  completed: "completed",
};

/**
 * Why a run's trials are not the whole of what it planned, or null when they are: a run that did
 * not complete (crashed, interrupted, stopped by its budget or its canary), one shard of a sweep,
 * or a log that lost lines since the run completed. Its numbers then describe a part.
 */
function incompleteness(dir: string, m: Manifest, recorded: number): RunPart | null {
  if (m.state !== "completed") {
    const crashed = m.state === "running" && !lockIsHeld(dir);
    return {
      what: `the run is ${STATE_WORDS[crashed ? "crashed" : m.state]}, not completed`,
      then: m.state === "running" && !crashed ? null : `\`${resumeCommand(dir)}\` completes it`,
    };
  }
  if (m.plan.shard !== null) {
    return {
      what: `the run is shard ${m.plan.shard.index}/${m.plan.shard.count} of a sweep (${m.plan.shard_planned} of its ${m.plan.planned} trials)`,
      then: "`fieldtest merge` of every shard gives the sweep's numbers",
    };
  }
  if (recorded < m.plan.shard_planned)
    return {
      what: `${RUN_FILES.trials} holds ${recorded} of the ${m.plan.shard_planned} trials the run planned: lines were lost since it completed`,
      then: null,
    };
  return null;
}

const partialText = (p: RunPart) => `${p.what}: its numbers describe only the trials it recorded${p.then === null ? "" : `; ${p.then}`}`;

/** The run's warnings as a command prints them (one line each, naming the run): what every reader of a run says on stderr. */
export const runWarnings = (run: Pick<LoadedRun, "dir" | "warnings">): string[] => run.warnings.map((w) => `${run.dir}: ${w}`);

/** A role that runs on the simulator, or replays a simulated run. */
export const isSimulated = (role: { provider: string; replay?: { as: string } }) => role.provider === "sim" || role.replay?.as === "sim";

/** The sim profile when a role runs on the simulator (or replays a simulated run); null for real providers. */
export function simProfileOf(run: LoadedRun): { name: string; description: string } | null {
  const c = run.manifest.config.client;
  const simulated = [c.planner, c.critic].some(isSimulated);
  if (!simulated) return null;
  const profile = c.sim?.profile as { name?: string; description?: string } | undefined;
  return { name: profile?.name ?? "default", description: profile?.description ?? "" };
}

/** Pack rules that could not be judged (a runtime error on a plan), as "rule CODE of pack NAME", with the trials they blocked. */
function packRuleErrors(trials: readonly TrialRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of trials) {
    const rules = new Set<string>();
    for (const r of t.rounds) for (const f of r.gate_findings) if (isRuleErrorFinding(f)) rules.add(`rule ${f.code} of ${f.gate}`);
    for (const rule of rules) counts.set(rule, (counts.get(rule) ?? 0) + 1);
  }
  return counts;
}
