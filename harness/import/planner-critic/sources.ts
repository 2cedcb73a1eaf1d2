import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { z } from "zod";
import { formatPath, InputError, readSource } from "../../../src/formats/load.ts";
import type { InputProblem } from "./logs.ts";
import { dimensionOfFolder, engineDimension, type EngineDimension } from "./dimensions.ts";
import {
  AssertionsSchema,
  PredecessorGoalSchema,
  SweepReportSchema,
  TraceHeadSchema,
  TraceSchema,
  type Assertions,
  type PredecessorGoal,
  type Trace,
} from "./schema.ts";

/**
 * Reading the predecessor's files (the I/O edge of the import). Every file is validated with
 * zod; a file that cannot be used becomes a problem line and the others stand.
 */

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => byName(a.name, b.name))
    .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));
}

export function requireDir(dir: string, option: string): void {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError(dir, option, "not a directory");
}

/** Parse and validate one JSON or YAML file; a problem instead of an exception. */
function readValidated<S extends z.ZodType>(file: string, schema: S, problems: InputProblem[]): z.output<S> | null {
  try {
    const source = readSource(file);
    const result = schema.safeParse(source.data);
    if (result.success) return result.data;
    const issue = result.error.issues[0]!;
    const line = source.lineOf(issue.path);
    problems.push({ file, where: `${line ? `line ${line}: ` : ""}${formatPath(issue.path) || "(root)"}`, detail: issue.message });
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    problems.push({ file, where: e.path || (e.line ? `line ${e.line}` : "(file)"), detail: e.detail });
  }
  return null;
}

/** A goal's folder of an engine dimension: its trace.json, when the predecessor wrote one, and its logs. */
export interface RecordedRun {
  /** The trace.json; null for logs the predecessor left without one (a run cut short). */
  file: string | null;
  trace: Trace | null;
  /** The folder of the trace (or of the logs' llm-logs/ when there is none). */
  dir: string;
  goalId: string;
  plannerLog: string | null;
  criticLog: string | null;
  /** The logs sit one folder up, shared with the traces of the dimension's other variants (each takes its engine run of them). */
  sharedLogs: boolean;
  /** The run group: the sweep folder relative to REPORTS; per-goal sweep folders (batch runners) are grouped by their parent. */
  group: string;
  dimension: EngineDimension;
  /** The sweep's loop configuration (its report.json or summary.json), when it sits where the predecessor wrote it. */
  loop: { mode: string; revision_cap: number } | null;
  /** The trace file's modification time (ISO), else its first log's: the only time a run without logged calls has. */
  mtime: string;
}

/** A trace.json that records no engine run (a dimension without LLM calls, or the replan summary). */
export interface SkippedTrace {
  file: string;
  dimension: string;
}

const up = (dir: string, levels: number) => Array.from({ length: levels }).reduce<string>((d) => dirname(d), dir);

/** The sweep's group name: its folder, or its parent's when the folder is one goal's batch output (`<group>/<goal>/core-api/<goal>`). */
function groupOf(reportsDir: string, sweep: string, folder: string): string {
  const own = basename(sweep);
  const perGoal = existsSync(join(sweep, folder, own)) || existsSync(join(sweep, "core-api", own));
  const root = perGoal ? dirname(sweep) : sweep;
  const rel = relative(reportsDir, root).split(sep).join("/");
  return rel === "" || rel.startsWith("..") ? basename(resolve(root)) : rel;
}

function sweepLoop(sweep: string, problems: InputProblem[]): RecordedRun["loop"] {
  for (const name of ["report.json", "summary.json"]) {
    const file = join(sweep, name);
    if (existsSync(file)) return readValidated(file, SweepReportSchema, problems)?.meta.loop_config ?? null;
  }
  return null;
}

/** Paths in walk order: folder by folder, each by name. */
function byPath(a: string, b: string): number {
  const [x, y] = [a.split(sep), b.split(sep)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return byName(x[i]!, y[i]!);
  return x.length - y.length;
}

/** A log's goal and role, from its name (`<goal>_<role>_llm_log.jsonl`). */
export const LOG_NAME = /^(.+)_(planner|critic)_llm_log\.jsonl$/;

/**
 * Every trace.json under the reports folder that records an engine run (core-api, critique-modes,
 * budget, replan: see dimensions.ts) with the logs beside it
 * (`llm-logs/<goal>_<role>_llm_log.jsonl`, or one folder up when the variants shared them), its run
 * group and its sweep's loop configuration; then every folder of an engine dimension whose logs no
 * trace.json sits beside (untracedFolders). In path order. Traces of the other dimensions are
 * returned as skipped; an unusable trace is a problem.
 */
export function findRecordedRuns(reportsDir: string, problems: InputProblem[]): { runs: RecordedRun[]; skipped: SkippedTrace[] } {
  const runs: RecordedRun[] = [];
  const skipped: SkippedTrace[] = [];
  const loops = new Map<string, RecordedRun["loop"]>();
  /** The run group and loop configuration of a goal's folder of a dimension. */
  const place = (dir: string, dimension: EngineDimension) => {
    const sweep = up(dir, dimension.depth);
    if (!loops.has(sweep)) loops.set(sweep, sweepLoop(sweep, problems));
    return { group: groupOf(reportsDir, sweep, dimension.folder), loop: loops.get(sweep)! };
  };
  const files = walk(reportsDir);
  for (const file of files.filter((f) => basename(f) === "trace.json")) {
    const head = readValidated(file, TraceHeadSchema, problems);
    if (head === null) continue;
    const dimension = engineDimension(head.dimension);
    if (dimension === null) {
      skipped.push({ file, dimension: head.dimension });
      continue;
    }
    const dir = dirname(file);
    const folder = basename(up(dir, dimension.depth - 1));
    if (folder !== dimension.folder) {
      problems.push({
        file,
        where: "dimension",
        detail: `a "${head.dimension}" trace outside ${dimension.folder}/ (the predecessor writes ${dimension.folder}/<goal>${dimension.depth === 3 ? "/<variant>" : ""}/trace.json): not imported`,
      });
      continue;
    }
    const trace = readValidated(file, TraceSchema, problems);
    if (trace === null) continue;
    // A variant's logs sit in its own folder, or beside its siblings' traces when they shared one logging provider (replan).
    const folders = dimension.depth === 3 ? [dir, dirname(dir)] : [dir];
    const log = (role: string) => folders.map((f) => join(f, "llm-logs", `${trace.goal_id}_${role}_llm_log.jsonl`)).find((path) => existsSync(path)) ?? null;
    const plannerLog = log("planner");
    const criticLog = log("critic");
    runs.push({
      file,
      trace,
      dir,
      goalId: trace.goal_id,
      plannerLog,
      criticLog,
      sharedLogs: [plannerLog, criticLog].some((l) => l !== null && dirname(dirname(l)) !== dir),
      dimension,
      ...place(dir, dimension),
      mtime: statSync(file).mtime.toISOString(),
    });
  }
  const claimed = new Set(runs.flatMap((r) => [r.plannerLog, r.criticLog]));
  for (const u of untracedFolders(files.filter((f) => !claimed.has(f))))
    runs.push({
      ...u,
      file: null,
      trace: null,
      sharedLogs: false,
      ...place(u.dir, u.dimension),
      mtime: statSync((u.plannerLog ?? u.criticLog)!).mtime.toISOString(),
    });
  return { runs: runs.sort((a, b) => byPath(a.dir, b.dir)), skipped };
}

/**
 * The predecessor's logs in a goal's folder of an engine dimension (`<dimension>/<goal>[/<variant>]/llm-logs/`)
 * with no trace.json in it: a run cut short before it wrote one. Its dimension is read from where
 * the folder sits; logs anywhere else are left to the caller.
 */
function untracedFolders(files: readonly string[]) {
  const folders = new Map<string, { dir: string; goalId: string; dimension: EngineDimension; plannerLog: string | null; criticLog: string | null }>();
  for (const file of files) {
    const [, goalId, role] = LOG_NAME.exec(basename(file)) ?? [];
    const dir = dirname(dirname(file));
    if (goalId === undefined || basename(dirname(file)) !== "llm-logs" || existsSync(join(dir, "trace.json"))) continue;
    const dimension = dimensionOfFolder(dir);
    if (dimension === null) continue;
    const key = `${dir}\u0000${goalId}`;
    const folder = folders.get(key) ?? { dir, goalId, dimension, plannerLog: null, criticLog: null };
    folders.set(key, { ...folder, [`${role}Log`]: file });
  }
  return [...folders.values()];
}

/** Every LoggingProvider log under the reports folder (`*_llm_log.jsonl`), in path order. */
export function findLogs(reportsDir: string): string[] {
  return walk(reportsDir).filter((f) => f.endsWith("_llm_log.jsonl"));
}

export interface GoalFile {
  file: string;
  goal: PredecessorGoal;
  assertions: Assertions | null;
  assertionsFile: string | null;
  /** The folder under --goals the file sits in (the predecessor's domain), or null at the root. */
  domain: string | null;
}

const ASSERTIONS = /\.assertions\.ya?ml$/;
const YAML = /\.ya?ml$/;

/** The goal file (without `.json`) an assertion file belongs to: `<stem>.assertions.yaml` beside it, or `assertions/<stem>.yaml` below its folder. */
function assertedGoal(file: string): string | null {
  if (ASSERTIONS.test(file)) return join(dirname(file), basename(file).replace(ASSERTIONS, ""));
  if (YAML.test(file) && basename(dirname(file)) === "assertions") return join(dirname(dirname(file)), basename(file).replace(YAML, ""));
  return null;
}

/**
 * Every `<id>.json` goal under the goals folder with its assertions, by goal id: the sample's
 * `<stem>.assertions.yaml` beside the goal, or the predecessor corpus's `assertions/<stem>.yaml`.
 */
export function findGoals(goalsDir: string, problems: InputProblem[]): Map<string, GoalFile> {
  const files = walk(goalsDir);
  const assertionFiles = new Map(
    files.flatMap((f) => {
      const goal = assertedGoal(f);
      return goal === null ? [] : [[goal, f] as const];
    }),
  );
  const goals = new Map<string, GoalFile>();
  for (const file of files.filter((f) => f.endsWith(".json"))) {
    const goal = readValidated(file, PredecessorGoalSchema, problems);
    if (goal === null) continue;
    if (goals.has(goal.id)) {
      problems.push({ file, where: "id", detail: `goal "${goal.id}" is also defined in ${goals.get(goal.id)!.file}: the first is kept` });
      continue;
    }
    const assertionsFile = assertionFiles.get(file.slice(0, -".json".length)) ?? null;
    const assertions = assertionsFile === null ? null : readValidated(assertionsFile, AssertionsSchema, problems);
    if (assertionsFile !== null && assertions === null) {
      problems.push({ file, where: "(goal)", detail: "not imported: its assertion file is invalid, so its expectation is unknown" });
      continue;
    }
    const folder = relative(goalsDir, dirname(file));
    goals.set(goal.id, { file, goal, assertions, assertionsFile, domain: folder === "" ? null : folder.split(sep)[0]! });
  }
  return goals;
}

export function readText(file: string): string {
  return readFileSync(file, "utf8");
}
