import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { hashCanonical } from "../../../src/canonical.ts";
import { InputError } from "../../../src/formats/load.ts";
import { runCanaries } from "../../canary.ts";
import { PACKAGE_VERSION } from "../../package.ts";
import type { Manifest } from "../../run/manifest.ts";
import { acquireLock, prepareOutDir, RUN_FILES, TrialLog, writeJsonAtomic } from "../../run/store.ts";
import { CLAIM_EXTRACTOR_VERSION } from "./claims.ts";
import { convertGoal, type ConvertedGoal } from "./goal.ts";
import { lastRun, parseLog, type InputProblem, type ParsedLog } from "./logs.ts";
import { importManifest } from "./manifest.ts";
import { findGoals, findRecordedRuns, readText, requireDir } from "./sources.ts";
import { buildTrial, type ImportedTrialRecord } from "./trial.ts";

/** Files an import adds to the run directory, beside the usual ones. */
export const IMPORT_FILES = { report: "import.json", goals: "goals" } as const;

export interface ImportOptions {
  reportsDir: string;
  goalsDir: string;
  out: string;
  force: boolean;
  runId: string;
  command: string[];
  now: () => Date;
}

export interface ImportResult {
  manifest: Manifest | null;
  trials: ImportedTrialRecord[];
  goals: number;
  /** Files or objects that were not imported (or only in part), one line each. */
  problems: InputProblem[];
  written: string[];
}

const EMPTY_LOG: ParsedLog = { entries: [], problems: [] };

/**
 * `fieldtest import planner-critic`: every core-api trace.json under `reportsDir`, with its
 * logs and the goal of the same id under `goalsDir`, becomes a trial of a run directory at `out`
 * (suite `imported`). Nothing is written when no trace can be imported.
 */
export function importPlannerCritic(o: ImportOptions): ImportResult {
  requireDir(o.reportsDir, "REPORTS");
  requireDir(o.goalsDir, "--goals");
  const canary = runCanaries();
  // The gates rescore every imported plan: a gate that fails its canary would make that meaningless.
  if (!canary.ok) throw new Error(`canary failed, nothing was imported:\n  ${canary.failures.join("\n  ")}`);
  const started = o.now().toISOString();
  const problems: InputProblem[] = [];
  const runs = findRecordedRuns(o.reportsDir, problems);
  if (runs.length === 0 && problems.length === 0) throw new InputError(o.reportsDir, "REPORTS", "no core-api trace.json found");
  const goalFiles = findGoals(o.goalsDir, problems);

  const goals = new Map<string, (ConvertedGoal & { hash: string }) | null>();
  const goalOf = (id: string, traceFile: string) => {
    const file = goalFiles.get(id);
    if (file === undefined) {
      problems.push({ file: traceFile, where: "goal_id", detail: `no goal "${id}" under ${o.goalsDir}: not imported` });
      return null;
    }
    if (!goals.has(id)) {
      const converted = convertGoal(file.goal, file.assertions, { domain: file.domain });
      if (typeof converted === "string") problems.push({ file: file.file, where: converted, detail: "not a valid fieldtest goal after conversion: its runs are not imported" });
      goals.set(id, typeof converted === "string" ? null : { ...converted, hash: hashCanonical(converted.goal) });
    }
    return goals.get(id)!;
  };

  const trials: ImportedTrialRecord[] = [];
  const trialCount = new Map<string, number>();
  for (const run of runs) {
    const goal = goalOf(run.trace.goal_id, run.file);
    if (goal === null) continue;
    const planner = run.plannerLog ? parseLog(run.plannerLog, readText(run.plannerLog), "planner") : EMPTY_LOG;
    const critic = run.criticLog ? parseLog(run.criticLog, readText(run.criticLog), "critic") : EMPTY_LOG;
    problems.push(...planner.problems, ...critic.problems);
    const trial = trialCount.get(goal.goal.id) ?? 0;
    trialCount.set(goal.goal.id, trial + 1);
    trials.push(
      buildTrial({
        goal: goal.goal,
        goal_notes: goal.notes,
        item_hash: goal.hash,
        trial,
        trace: run.trace,
        run: lastRun(planner.entries, critic.entries),
        source: { trace: run.file, planner_log: run.plannerLog, critic_log: run.criticLog },
        fallback_time: run.mtime,
      }),
    );
  }
  if (trials.length === 0) return { manifest: null, trials, goals: 0, problems, written: [] };

  const imported = [...goals.entries()].flatMap(([id, g]) => (g !== null && trialCount.has(id) ? [[id, g] as const] : []));
  const manifest = importManifest({
    runId: o.runId,
    command: o.command,
    harnessVersion: PACKAGE_VERSION,
    importedAt: { started, finished: o.now().toISOString() },
    trials,
    items: Object.fromEntries(imported.map(([id, g]) => [id, g.hash])),
    revisionCaps: runs.flatMap((r) => (r.revisionCap === null ? [] : [r.revisionCap])),
    canary,
  });
  prepareOutDir(o.out, o.force);
  const release = acquireLock(o.out, o.now);
  try {
    if (o.force) for (const f of Object.values(IMPORT_FILES)) rmSync(join(o.out, f), { recursive: true, force: true });
    const log = new TrialLog(o.out);
    for (const t of trials) log.append(t);
    log.close();
    // Laid out as a corpus (goals/<domain>/<id>.json), so `fieldtest report DIR --corpus DIR` judges the expectations.
    for (const [id, g] of imported) {
      mkdirSync(join(o.out, IMPORT_FILES.goals, g.goal.domain), { recursive: true });
      writeJsonAtomic(join(o.out, IMPORT_FILES.goals, g.goal.domain, `${id}.json`), g.goal);
    }
    writeJsonAtomic(join(o.out, IMPORT_FILES.report), {
      source: { format: "planner-critic-0.1.0", reports: o.reportsDir, goals: o.goalsDir },
      claim_extractor: CLAIM_EXTRACTOR_VERSION,
      goals: Object.fromEntries(imported.map(([id, g]) => [id, { file: goalFiles.get(id)!.file, assertions: goalFiles.get(id)!.assertionsFile, notes: g.notes }])),
      trials: trials.map((t) => ({ item_id: t.item_id, trial: t.trial, trace: t.conversion.source.trace, notes: t.conversion.notes.length, unmatched_log_calls: t.conversion.unmatched_log_calls })),
      problems,
    });
    writeJsonAtomic(join(o.out, RUN_FILES.manifest), manifest);
  } finally {
    release();
  }
  const written = [RUN_FILES.manifest, RUN_FILES.trials, IMPORT_FILES.report, `${IMPORT_FILES.goals}/`].map((f) => join(o.out, f));
  return { manifest, trials, goals: imported.length, problems, written };
}
