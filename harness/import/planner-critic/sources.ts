import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import type { z } from "zod";
import { formatPath, InputError, readSource } from "../../../src/formats/load.ts";
import type { InputProblem } from "./logs.ts";
import { AssertionsSchema, PredecessorGoalSchema, SweepReportSchema, TraceSchema, type Assertions, type PredecessorGoal, type Trace } from "./schema.ts";

/**
 * Reading the predecessor's files (the I/O edge of the import). Every file is validated with
 * zod; a file that cannot be used becomes a problem line and the others stand.
 */

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));
}

export function requireDir(dir: string, option: string): void {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError(dir, option, "not a directory");
}

/** Parse and validate one JSON or YAML file; a problem instead of an exception. */
export function readValidated<S extends z.ZodType>(file: string, schema: S, problems: InputProblem[]): z.output<S> | null {
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

export interface RecordedRun {
  file: string;
  trace: Trace;
  plannerLog: string | null;
  criticLog: string | null;
  /** The sweep's report.json revision cap, when it sits where the predecessor wrote it. */
  revisionCap: number | null;
  /** The trace file's modification time (ISO), the only time a run without logged calls has. */
  mtime: string;
}

/**
 * Every core-api `trace.json` under the reports folder, in path order, with the logs beside it
 * (`llm-logs/<goal>_<role>_llm_log.jsonl`) and its sweep's `report.json` two levels up.
 */
export function findRecordedRuns(reportsDir: string, problems: InputProblem[]): RecordedRun[] {
  return walk(reportsDir)
    .filter((f) => basename(f) === "trace.json")
    .flatMap((file) => {
      const raw = readValidated(file, TraceSchema.pick({ dimension: true }), problems);
      if (raw === null) return [];
      if (raw.dimension !== "core-api") {
        problems.push({ file, where: "dimension", detail: `"${raw.dimension}" is not imported: only core-api traces record an engine run` });
        return [];
      }
      const trace = readValidated(file, TraceSchema, problems);
      if (trace === null) return [];
      const dir = dirname(file);
      const log = (role: string) => {
        const path = join(dir, "llm-logs", `${trace.goal_id}_${role}_llm_log.jsonl`);
        return existsSync(path) ? path : null;
      };
      const reportFile = join(dirname(dirname(dir)), "report.json");
      const report = existsSync(reportFile) ? readValidated(reportFile, SweepReportSchema, problems) : null;
      return [{ file, trace, plannerLog: log("planner"), criticLog: log("critic"), revisionCap: report?.meta.loop_config.revision_cap ?? null, mtime: statSync(file).mtime.toISOString() }];
    });
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

/** Every `<id>.json` goal under the goals folder with its `<id>.assertions.yaml`, by goal id. */
export function findGoals(goalsDir: string, problems: InputProblem[]): Map<string, GoalFile> {
  const files = walk(goalsDir);
  const assertionFiles = new Map(files.filter((f) => ASSERTIONS.test(f)).map((f) => [join(dirname(f), basename(f).replace(ASSERTIONS, "")), f]));
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
