import { formatPath } from "../../../src/formats/load.ts";
import { splitConcatenatedJson } from "./concatenated-json.ts";
import { LogEntrySchema, type LogEntry } from "./schema.ts";

/** An object of a log that could not be used: one line naming the file and where. */
export interface InputProblem {
  file: string;
  where: string;
  detail: string;
}

export interface ParsedLog {
  entries: LogEntry[];
  problems: InputProblem[];
}

/** Every valid entry of one `*_llm_log.jsonl`, in file order; torn and malformed objects are reported. Pure. */
export function parseLog(file: string, text: string, role: LogEntry["role"]): ParsedLog {
  const { values, problems } = splitConcatenatedJson(text);
  const out: ParsedLog = { entries: [], problems: problems.map((p) => ({ file, where: `line ${p.line}`, detail: `${p.kind} object: ${p.detail}` })) };
  for (const { line, value } of values) {
    const parsed = LogEntrySchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      out.problems.push({ file, where: `line ${line}: ${formatPath(issue.path) || "(root)"}`, detail: issue.message });
    } else if (parsed.data.role !== role) {
      out.problems.push({ file, where: `line ${line}: role`, detail: `a ${parsed.data.role} entry in the ${role} log` });
    } else out.entries.push(parsed.data);
  }
  return out;
}

/** The engine runs in one log: `call` restarts at 1 for each run appended to the file. */
export function splitRuns(entries: readonly LogEntry[]): LogEntry[][] {
  const runs: LogEntry[][] = [];
  for (const e of entries) {
    const run = runs.at(-1);
    if (run && e.call > run.at(-1)!.call) run.push(e);
    else runs.push([e]);
  }
  return runs;
}

const endMs = (e: LogEntry) => Date.parse(e.timestamp);
/** The log's timestamp is written when the call returns; its start is that minus the duration. */
export const startMs = (e: LogEntry) => endMs(e) - e.duration_seconds * 1000;

export interface MatchedRun {
  /** The run's planner and critic calls in the order they happened. */
  calls: LogEntry[];
  /** Earlier runs in the same logs, which no trace records (a rerun overwrote their trace.json). */
  unmatched: LogEntry[][];
}

/**
 * The last engine run of a goal's logs (the one its trace.json records: every rerun overwrote
 * the trace and appended to the logs). A critic run belongs to the latest planner run that began
 * no later than it; calls of one role keep their logged order, the two roles merge by time.
 */
export function lastRun(planner: readonly LogEntry[], critic: readonly LogEntry[]): MatchedRun {
  const plannerRuns = splitRuns(planner);
  const criticRuns = splitRuns(critic);
  const owner = (run: LogEntry[]) => {
    let k = -1;
    plannerRuns.forEach((p, i) => {
      if (endMs(p[0]!) <= endMs(run[0]!)) k = i;
    });
    return k;
  };
  const last = plannerRuns.length - 1;
  const mine = criticRuns.filter((r) => owner(r) === last || (last < 0 && r === criticRuns.at(-1)));
  const others = [...plannerRuns.slice(0, Math.max(last, 0)), ...criticRuns.filter((r) => !mine.includes(r))];
  return { calls: interleave(plannerRuns[last] ?? [], mine.flat()), unmatched: others };
}

/** Merge two call sequences by end time, then start time; a tie goes to the planner (a plan precedes its audit). */
export function interleave(planner: readonly LogEntry[], critic: readonly LogEntry[]): LogEntry[] {
  const out: LogEntry[] = [];
  let i = 0;
  let j = 0;
  while (i < planner.length || j < critic.length) {
    const p = planner[i];
    const c = critic[j];
    const takePlanner = c === undefined || (p !== undefined && (endMs(p) - endMs(c) || startMs(p) - startMs(c)) <= 0);
    out.push(takePlanner ? p! : c!);
    if (takePlanner) i++;
    else j++;
  }
  return out;
}
