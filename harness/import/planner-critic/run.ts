import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { hashCanonical } from "../../../src/canonical.ts";
import { InputError, loadFile } from "../../../src/formats/load.ts";
import { runCanaries } from "../../canary.ts";
import { PACKAGE_VERSION } from "../../package.ts";
import type { Manifest } from "../../../src/formats/manifest.ts";
import { makeOutputDir } from "../../output.ts";
import { claimOutDir } from "../../run/lock.ts";
import { RUN_FILES, TrialLog, writeJsonAtomic } from "../../run/store.ts";
import { NOT_RECORDED, systemPromptHash } from "./calls.ts";
import { CLAIM_EXTRACTOR_VERSION } from "./claims.ts";
import { CRITIQUE_MODES, PREDECESSOR_DEFAULT_CAP, PREDECESSOR_MODE } from "./dimensions.ts";
import { convertGoal, type ConvertedGoal } from "./goal.ts";
import { interleave, loggedRuns, matchRun, parseLog, splitEngineRuns, type EngineRuns, type InputProblem, type MatchedRun, type ParsedLog } from "./logs.ts";
import { importManifest, type ImportedRunSource } from "./manifest.ts";
import { note } from "./notes.ts";
import type { LogEntry } from "./schema.ts";
import { findGoals, findLogs, findRecordedRuns, LOG_NAME, readText, requireDir, type GoalFile, type RecordedRun, type SkippedTrace } from "./sources.ts";
import { acceptedPlan, buildTrial, UNTRACED, type ImportedTrialRecord } from "./trial.ts";

/** What an import writes: an index at --out, and per run the usual run files plus these. */
export const IMPORT_FILES = { report: "import.json", goals: "goals" } as const;

interface ImportOptions {
  reportsDir: string;
  goalsDir: string;
  /** The folder that receives one run directory per imported run, and the index. */
  out: string;
  force: boolean;
  /** Run ids are this with the run's number appended. */
  runId: string;
  command: string[];
  now: () => Date;
  /** Import nothing when any input is broken (an InputError naming the first), instead of leaving it out. */
  strict?: boolean;
}

interface ImportedRun {
  name: string;
  dir: string;
  source: ImportedRunSource;
  manifest: Manifest;
  trials: ImportedTrialRecord[];
  goals: number;
}

/** Where every logged call went; `logged = imported + unplaced`. */
interface CallAccounting {
  /** Valid entries in every `*_llm_log.jsonl` under the reports folder. */
  logged: number;
  /** Calls of the imported trials. */
  imported: number;
  /** Of those, the calls of trials whose outcome no trace.json records (a rerun replaced their trace, or they left none), and how many such trials. */
  untraced: number;
  untraced_trials: number;
  /** Calls no trial took (each log or shared log holding some is a problem line): not imported. */
  unplaced: number;
}

export interface ImportResult {
  runs: ImportedRun[];
  goals: number;
  /** Files or objects that were not imported (or only in part), one line each. */
  problems: InputProblem[];
  /** Traces of dimensions that never ran the engine. */
  skipped: SkippedTrace[];
  calls: CallAccounting;
  written: string[];
}

const EMPTY_LOG: ParsedLog = { entries: [], problems: [] };

/** A run's folder name: its name with `/` and `@` as `--`, anything else unusual as `_`. */
const runSlug = (name: string) => name.replace(/[/@]/g, "--").replace(/[^A-Za-z0-9._-]/g, "_");

/** A goal's folder of an engine dimension, matched to its converted goal, its logs split into engine runs. */
interface Prepared {
  recorded: RecordedRun;
  goal: ConvertedGoal & { hash: string };
  file: GoalFile;
  engine: EngineRuns;
}

/** One engine run of a folder, before it becomes a trial. */
interface PreparedTrial {
  folder: Prepared;
  run: MatchedRun;
  /** Whether the folder's trace records it; when not, why (its outcome was never recorded). */
  untraced: keyof typeof UNTRACED | null;
  /** Calls of the folder's logs that no trial took, counted on the trial of its trace. */
  unplaced: number;
  /** The critic system prompts its calls carried (sorted hashes joined): the run's critic prompt variant. */
  criticPrompt: string;
}

function criticPromptOf(calls: readonly LogEntry[]): string {
  return [...new Set(calls.filter((c) => c.role === "critic").map(systemPromptHash))].sort().join("+");
}

/**
 * Traces whose variants shared one log (the replan dimension's policies ran through one logging
 * planner): each run of the log is split into engine runs, each beginning with a decompose call,
 * and the variants take them in the order the predecessor ran them; the log's last run is the one
 * their traces record. A run whose engine runs do not match the variants in number is not
 * guessed at: its calls are not imported, and the problem is named.
 */
function splitSharedLogs(prepared: Prepared[], entriesOf: (file: string | null) => LogEntry[], problems: InputProblem[]): void {
  const groups = new Map<string, Prepared[]>();
  for (const p of prepared.filter((x) => x.recorded.sharedLogs)) {
    const key = `${p.recorded.plannerLog}\u0000${p.recorded.criticLog}`;
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  for (const members of groups.values()) {
    members.sort((a, b) => a.recorded.dimension.sequence - b.recorded.dimension.sequence);
    const { plannerLog, criticLog } = members[0]!.recorded;
    const order = members.map((m) => m.recorded.dimension.name).join(", ");
    const by = `the variants sharing the log ran in this order (${order}), each engine run beginning with a decompose call`;
    const logged = loggedRuns(entriesOf(plannerLog), entriesOf(criticLog));
    const split = logged.map((r) => splitEngineRuns(interleave(r.planner, r.critic), (e) => acceptedPlan(e) !== null));
    const of = split.reduce((n, pieces) => n + pieces.length, 0);
    const engine: EngineRuns[] = members.map(() => ({ runs: [], recorded: -1, unplaced: [] }));
    let index = 0;
    split.forEach((pieces, k) => {
      if (pieces.length !== members.length) {
        problems.push({
          file: plannerLog ?? criticLog!,
          where: "(file)",
          detail: `shared by ${members.length} traces (${order}) but its run ${k + 1} of ${split.length} holds ${pieces.length} engine run(s) (each begins with a decompose call): not split, its ${pieces.flat().length} call(s) are not imported`,
        });
        engine[0]!.unplaced.push(...pieces.flat());
      } else
        pieces.forEach((calls, i) => {
          if (k === split.length - 1) engine[i]!.recorded = engine[i]!.runs.length;
          engine[i]!.runs.push({ calls, position: { index: index + i, of, by } });
        });
      index += pieces.length;
    });
    members.forEach((m, i) => (m.engine = engine[i]!));
  }
}

/**
 * A folder's engine runs as trials, in the order they ran: the one its trace records (last when
 * its run is not in the logs), and every other, whose outcome no trace records. An untraced run
 * without a critic call of its own takes the critic prompt of the folder's trace (or its logs'),
 * so it joins the run of the trace beside it.
 */
function folderTrials(folder: Prepared): PreparedTrial[] {
  const { runs, recorded, unplaced } = folder.engine;
  // Where the traced run sits among the folder's runs; null when the folder has no trace.
  const tracedAt = folder.recorded.trace === null ? null : recorded === -1 ? runs.length : recorded;
  const trialRuns = tracedAt === runs.length ? [...runs, { calls: [], position: null }] : runs;
  const folderPrompt = criticPromptOf(tracedAt === null ? runs.flatMap((r) => r.calls) : trialRuns[tracedAt]!.calls);
  return trialRuns.map((run, i) => {
    const own = criticPromptOf(run.calls);
    if (i === tracedAt) return { folder, run, untraced: null, unplaced: unplaced.length, criticPrompt: own };
    const untraced = tracedAt !== null && i < tracedAt ? "replaced" : "no_trace";
    return { folder, run, untraced, unplaced: 0, criticPrompt: own === "" ? folderPrompt : own };
  });
}

/** The run's settings: its dimension's own, else its sweeps' recorded loop configuration, else the predecessor's defaults. */
function runSource(name: string, folders: readonly RecordedRun[], problems: InputProblem[]): ImportedRunSource {
  const first = folders[0]!;
  const dimension = first.dimension;
  const loops = folders.flatMap((f) => (f.loop === null ? [] : [f.loop]));
  const recordedModes = [...new Set(loops.map((l) => l.mode))];
  const caps = [...new Set(loops.map((l) => l.revision_cap))].sort((a, b) => a - b);
  const critiqueMode = dimension.critiqueMode ?? recordedModes[0] ?? PREDECESSOR_MODE;
  if (dimension.critiqueMode === null && recordedModes.length > 1)
    problems.push({
      file: first.file ?? first.dir,
      where: "loop_config.mode",
      detail: `run ${name}: its sweeps used modes ${recordedModes.join(", ")}; ${critiqueMode} is recorded`,
    });
  const mode = CRITIQUE_MODES[critiqueMode];
  if (mode === undefined)
    problems.push({
      file: first.file ?? first.dir,
      where: "loop_config.mode",
      detail: `"${critiqueMode}" is not a predecessor critique mode: recorded as gates-first`,
    });
  const maxRounds = dimension.cap ?? caps.at(-1) ?? PREDECESSOR_DEFAULT_CAP;
  return {
    run: name,
    group: first.group,
    dimension: dimension.name,
    critique_mode: critiqueMode,
    mode: mode ?? "gates-first",
    max_rounds: maxRounds,
    max_rounds_note:
      dimension.cap !== null
        ? `the ${dimension.name} dimension's fixed revision cap`
        : caps.length === 0
          ? `no report.json: the predecessor's default cap ${PREDECESSOR_DEFAULT_CAP}`
          : caps.length > 1
            ? `sweeps used different caps (${caps.join(", ")}): the largest`
            : null,
    replan_policy: dimension.replanPolicy,
  };
}

/** The previous import at `out` is replaced only with --force, and only the run folders its index lists. */
function prepareImportRoot(out: string, force: boolean): void {
  makeOutputDir(out, "--out");
  if (readdirSync(out).length > 0) {
    if (!force) throw new InputError(out, "--out", "folder is not empty (use --force to replace a previous import)");
    const index = join(out, IMPORT_FILES.report);
    if (existsSync(index)) {
      const previous = loadFile(index, z.looseObject({ runs: z.array(z.looseObject({ dir: z.string() })).default([]) }));
      for (const r of previous.runs) rmSync(join(out, basename(r.dir)), { recursive: true, force: true });
      rmSync(index, { force: true });
    }
  }
}

/** Every `*_llm_log.jsonl` under the reports folder, parsed; a log not named by role is a problem, not read. */
function readLogs(reportsDir: string, problems: InputProblem[]): Map<string, ParsedLog> {
  const logs = new Map<string, ParsedLog>();
  for (const file of findLogs(reportsDir)) {
    const role = LOG_NAME.exec(basename(file))?.[2] as "planner" | "critic" | undefined;
    if (role === undefined) {
      problems.push({ file, where: "(file)", detail: "not named <goal>_planner_llm_log.jsonl or <goal>_critic_llm_log.jsonl: not read" });
      continue;
    }
    const parsed = parseLog(file, readText(file), role);
    problems.push(...parsed.problems);
    logs.set(file, parsed);
  }
  return logs;
}

/**
 * Each goal's folder with its goal converted (once per dimension × goal) and its logs split into
 * engine runs; a folder whose goal is missing or does not convert is a problem, not imported.
 */
function prepareRuns(
  recorded: readonly RecordedRun[],
  goalFiles: ReadonlyMap<string, GoalFile>,
  entriesOf: (file: string | null) => LogEntry[],
  goalsDir: string,
  problems: InputProblem[],
): Prepared[] {
  const converted = new Map<string, (ConvertedGoal & { hash: string }) | null>();
  const prepared: Prepared[] = [];
  for (const r of recorded) {
    const file = goalFiles.get(r.goalId);
    if (file === undefined) {
      problems.push({ file: r.file ?? r.dir, where: r.file === null ? "(logs)" : "goal_id", detail: `no goal "${r.goalId}" under ${goalsDir}: not imported` });
      continue;
    }
    const key = `${r.dimension.name}\u0000${file.goal.id}`;
    if (!converted.has(key)) {
      const c = convertGoal(r.dimension.goal(file.goal), file.assertions, { domain: file.domain });
      if (typeof c === "string") problems.push({ file: file.file, where: c, detail: "not a valid fieldtest goal after conversion: its runs are not imported" });
      const notes = typeof c === "string" || r.dimension.goalNote === null ? [] : [note("derived", "goal", r.dimension.goalNote)];
      converted.set(key, typeof c === "string" ? null : { goal: c.goal, notes: [...notes, ...c.notes], hash: hashCanonical(c.goal) });
    }
    const goal = converted.get(key)!;
    if (goal === null) continue;
    const shape =
      r.trace === null ? null : { revisions: r.trace.result.revision_count, criticCalls: r.trace.result.llm_calls, durationSeconds: r.trace.duration_seconds };
    // Shared logs are split below, once all their variants are here.
    const engine = r.sharedLogs ? { runs: [], recorded: -1, unplaced: [] } : matchRun(entriesOf(r.plannerLog), entriesOf(r.criticLog), shape);
    prepared.push({ recorded: r, goal, file, engine });
  }
  splitSharedLogs(prepared, entriesOf, problems);
  return prepared;
}

/** One run per group × dimension, and per critic prompt when the group's trials used several; sorted by name. */
function planRuns(trials: readonly PreparedTrial[]): { name: string; members: PreparedTrial[] }[] {
  const byRun = new Map<string, PreparedTrial[]>();
  for (const t of trials) {
    const base = `${t.folder.recorded.group}/${t.folder.recorded.dimension.name}`;
    byRun.set(base, [...(byRun.get(base) ?? []), t]);
  }
  const planned: { name: string; members: PreparedTrial[] }[] = [];
  for (const [base, members] of byRun) {
    const variants = [...new Set(members.map((m) => m.criticPrompt))].sort();
    for (const v of variants)
      planned.push({
        name: variants.length === 1 ? base : `${base}@${v === "" ? "no-critic-call" : v === NOT_RECORDED ? "critic-unlogged" : `critic-${v.slice(0, 8)}`}`,
        members: members.filter((m) => m.criticPrompt === v),
      });
  }
  return planned.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * A planned run in memory: its trials and its manifest. A goal's trials are numbered from 0 in
 * the order its engine runs ran (folder by folder, in path order, when several folders of the
 * run hold the goal), so the first run of the goal is trial 0.
 */
function buildRun(
  o: ImportOptions,
  planned: { name: string; members: PreparedTrial[] },
  index: number,
  context: { started: string; canary: ReturnType<typeof runCanaries>; problems: InputProblem[] },
) {
  const { name, members } = planned;
  const source = runSource(name, [...new Set(members.map((m) => m.folder.recorded))], context.problems);
  const trialCount = new Map<string, number>();
  const trials = members.map(({ folder, run, untraced, unplaced }) => {
    const trial = trialCount.get(folder.goal.goal.id) ?? 0;
    trialCount.set(folder.goal.goal.id, trial + 1);
    const { recorded } = folder;
    return buildTrial({
      goal: folder.goal.goal,
      goal_notes: folder.goal.notes,
      item_hash: folder.goal.hash,
      trial,
      ...(untraced === null ? { trace: recorded.trace! } : { trace: null, untraced }),
      run,
      unplaced,
      source: { trace: untraced === null ? recorded.file : null, planner_log: recorded.plannerLog, critic_log: recorded.criticLog },
      fallback_time: recorded.mtime,
    });
  });
  const goals = new Map(members.map((m) => [m.folder.goal.goal.id, m.folder] as const));
  const manifest = importManifest({
    runId: `${o.runId}-${String(index + 1).padStart(2, "0")}`,
    command: o.command,
    harnessVersion: PACKAGE_VERSION,
    importedAt: { started: context.started, finished: o.now().toISOString() },
    trials,
    items: Object.fromEntries([...goals].map(([id, m]) => [id, m.goal.hash])),
    source,
    canary: context.canary,
  });
  return { name, dir: join(o.out, runSlug(name)), source, manifest, trials, goals };
}

type BuiltRun = ReturnType<typeof buildRun>;

/** Where every logged call went; a log no folder took, or a shared log's run no variant took, is a problem. */
function accountCalls(
  logs: ReadonlyMap<string, ParsedLog>,
  prepared: readonly Prepared[],
  runs: readonly BuiltRun[],
  problems: InputProblem[],
): CallAccounting {
  const claimed = new Set(prepared.flatMap((p) => [p.recorded.plannerLog, p.recorded.criticLog].filter((f): f is string => f !== null)));
  for (const [file, parsed] of logs)
    if (!claimed.has(file) && parsed.entries.length > 0)
      problems.push({ file, where: "(file)", detail: `${parsed.entries.length} logged call(s) that no trial took: not imported` });
  const trials = runs.flatMap((r) => r.trials);
  const untraced = trials.filter((t) => t.conversion.source.trace === null);
  const callsOf = (ts: readonly ImportedTrialRecord[]) => ts.reduce((n, t) => n + t.calls.length, 0);
  return {
    logged: [...logs.values()].reduce((n, l) => n + l.entries.length, 0),
    imported: callsOf(trials),
    untraced: callsOf(untraced),
    untraced_trials: untraced.length,
    unplaced:
      [...logs].reduce((n, [file, l]) => n + (claimed.has(file) ? 0 : l.entries.length), 0) + prepared.reduce((n, p) => n + p.engine.unplaced.length, 0),
  };
}

/** With --strict, the first input problem stops the import before anything is written. */
function refuseBrokenInput(problems: readonly InputProblem[]): void {
  const [first] = problems;
  if (first === undefined) return;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more input problem(s))` : "";
  throw new InputError(first.file, first.where, `${first.detail}${more}; --strict imports nothing while an input is broken`);
}

/** A run's folder: its trials, its goals laid out as a corpus, its import.json and manifest. */
function writeRun(o: ImportOptions, run: BuiltRun): void {
  const release = claimOutDir(run.dir, { now: o.now, force: false });
  try {
    const log = new TrialLog(run.dir);
    for (const t of run.trials) log.append(t);
    log.close();
    // Laid out as a corpus (goals/<domain>/<id>.json), so `fieldtest report DIR --corpus DIR` judges the expectations.
    for (const [id, m] of run.goals) {
      mkdirSync(join(run.dir, IMPORT_FILES.goals, m.goal.goal.domain), { recursive: true });
      writeJsonAtomic(join(run.dir, IMPORT_FILES.goals, m.goal.goal.domain, `${id}.json`), m.goal.goal);
    }
    writeJsonAtomic(join(run.dir, IMPORT_FILES.report), {
      source: { format: "planner-critic-0.1.0", reports: o.reportsDir, goals: o.goalsDir, ...run.source },
      claim_extractor: CLAIM_EXTRACTOR_VERSION,
      goals: Object.fromEntries([...run.goals].map(([id, m]) => [id, { file: m.file.file, assertions: m.file.assertionsFile, notes: m.goal.notes }])),
      trials: run.trials.map((t) => ({
        item_id: t.item_id,
        trial: t.trial,
        trace: t.conversion.source.trace,
        notes: t.conversion.notes.length,
        unmatched_log_calls: t.conversion.unmatched_log_calls,
      })),
    });
    writeJsonAtomic(join(run.dir, RUN_FILES.manifest), run.manifest);
  } finally {
    release();
  }
}

/** The import's index at --out: every run written, where every call went, what was skipped or broken. */
function writeImportIndex(
  o: ImportOptions,
  runs: readonly BuiltRun[],
  calls: CallAccounting,
  skipped: readonly SkippedTrace[],
  problems: readonly InputProblem[],
): string {
  const index = join(o.out, IMPORT_FILES.report);
  writeJsonAtomic(index, {
    source: { format: "planner-critic-0.1.0", reports: o.reportsDir, goals: o.goalsDir },
    claim_extractor: CLAIM_EXTRACTOR_VERSION,
    calls,
    runs: runs.map((r) => ({
      name: r.name,
      dir: basename(r.dir),
      run_id: r.manifest.run_id,
      dimension: r.source.dimension,
      mode: r.source.mode,
      critic_system_prompt: r.manifest.roles.critic.prompt,
      trials: r.trials.length,
      items: r.goals.size,
      calls: r.manifest.totals.calls,
      untraced_trials: r.trials.filter((t) => t.conversion.source.trace === null).length,
    })),
    skipped_traces: skipped,
    problems,
  });
  return index;
}

/**
 * `fieldtest import planner-critic`: every engine run logged under `reportsDir` (every run group ×
 * every engine dimension, see dimensions.ts) becomes a trial of the goal of the same id under
 * `goalsDir`: the one its trace.json records with its recorded outcome, every other (a rerun
 * replaced its trace, or it left none) with an unrecorded one (status error). Each run group ×
 * dimension becomes a run directory under `out` (suite `imported`), split further when its trials
 * used different critic system prompts, so a run never mixes prompt variants. Nothing is written
 * when no engine run can be imported.
 */
export function importPlannerCritic(o: ImportOptions): ImportResult {
  requireDir(o.reportsDir, "REPORTS");
  requireDir(o.goalsDir, "--goals");
  const canary = runCanaries();
  // The gates rescore every imported plan: a gate that fails its canary would make that meaningless.
  if (!canary.ok) throw new Error(`canary failed, nothing was imported:\n  ${canary.failures.join("\n  ")}`);
  const started = o.now().toISOString();
  const problems: InputProblem[] = [];
  const { runs: recorded, skipped } = findRecordedRuns(o.reportsDir, problems);
  if (recorded.length === 0 && problems.length === 0) throw new InputError(o.reportsDir, "REPORTS", "no trace.json of an engine run found");
  const goalFiles = findGoals(o.goalsDir, problems);
  const logs = readLogs(o.reportsDir, problems);
  const entriesOf = (file: string | null) => (file === null ? EMPTY_LOG : (logs.get(file) ?? EMPTY_LOG)).entries;

  const prepared = prepareRuns(recorded, goalFiles, entriesOf, o.goalsDir, problems);
  const runs = planRuns(prepared.flatMap(folderTrials)).map((planned, index) => buildRun(o, planned, index, { started, canary, problems }));
  const calls = accountCalls(logs, prepared, runs, problems);
  const result: ImportResult = { runs: [], goals: new Set(prepared.map((p) => p.goal.goal.id)).size, problems, skipped, calls, written: [] };
  if (o.strict) refuseBrokenInput(problems);
  if (runs.length === 0) return { ...result, goals: 0 };

  prepareImportRoot(o.out, o.force);
  for (const run of runs) writeRun(o, run);
  const index = writeImportIndex(o, runs, calls, skipped, problems);
  return {
    ...result,
    runs: runs.map((r) => ({
      name: r.name,
      dir: r.dir,
      source: r.source,
      manifest: r.manifest,
      trials: r.trials,
      goals: r.goals.size,
    })),
    written: [index, ...runs.map((r) => r.dir)],
  };
}
