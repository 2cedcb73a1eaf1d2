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

const userText = (e: LogEntry) => e.prompt_messages.find((m) => m.role === "user")?.content ?? "";

/** A planner call that drafts a plan from the goal (the predecessor's `GOAL:` prompt): each engine run begins with one. */
const isDecompose = (e: LogEntry) => e.role === "planner" && userText(e).startsWith("GOAL:");

/**
 * The version of the plan a call's prompt carries (`PLAN:` then the plan as the predecessor
 * dumped it, `'version': N` its first version key): the plan a revision revises or a critic
 * reviews. Null when the prompt carries none.
 */
function promptPlanVersion(e: LogEntry): number | null {
  const match = /^PLAN:\n\{[^\n]*?'version': (\d+)/m.exec(userText(e));
  return match ? Number(match[1]) : null;
}

/**
 * Where a call sits in the engine's protocol, for calls that returned in the same second: a
 * decompose drafts plan 1 and a revision of plan N drafts N + 1 (rank 2·version); a critic
 * reviews the plan its prompt names, after it was drafted and before it is revised (2·version + 1).
 * Null when the prompt does not say.
 */
function protocolRank(e: LogEntry): number | null {
  if (isDecompose(e)) return 2;
  const version = promptPlanVersion(e);
  if (version === null) return null;
  return e.role === "planner" ? 2 * (version + 1) : 2 * version + 1;
}

/** One engine run in a goal's logs: its planner calls and the critic calls made while it ran. */
interface LoggedRun {
  planner: LogEntry[];
  critic: LogEntry[];
}

/**
 * Every engine run in a goal's two logs, in the order they ran: each planner run (see splitRuns)
 * with the critic runs that began after it began and before the next one did. A critic run that
 * no planner run can own (logged before any) is a run of its own, first. Pure.
 */
export function loggedRuns(planner: readonly LogEntry[], critic: readonly LogEntry[]): LoggedRun[] {
  const plannerRuns = splitRuns(planner);
  const runs: LoggedRun[] = plannerRuns.map((p) => ({ planner: p, critic: [] }));
  const orphans: LoggedRun[] = [];
  for (const c of splitRuns(critic)) {
    let owner = -1;
    plannerRuns.forEach((p, i) => {
      if (endMs(p[0]!) <= endMs(c[0]!)) owner = i;
    });
    if (owner < 0) orphans.push({ planner: [], critic: c });
    else runs[owner]!.critic.push(...c);
  }
  return [...orphans, ...runs];
}

/** What a trace recorded about its engine run: enough to tell it apart from the other runs in the logs. */
interface RecordedRunShape {
  /** Plans the predecessor accepted (its revision_count); null when the trace does not say. */
  revisions: number | null;
  /** Critic invocations (its llm_calls); null when the trace does not say. */
  criticCalls: number | null;
  durationSeconds: number | null;
}

const spanSeconds = (r: LoggedRun) => {
  const calls = [...r.planner, ...r.critic];
  return (Math.max(...calls.map(endMs)) - Math.min(...calls.map(startMs))) / 1000;
};

/** n recorded invocations show as n to 3n logged calls (the predecessor made up to 3 attempts per invocation). */
const within = (logged: number, recorded: number | null) => recorded === null || (logged >= recorded && logged <= 3 * recorded);
const exactly = (logged: number, recorded: number | null) => recorded === null || logged === recorded;

/**
 * Which of a goal's logged runs its trace records (an index into `runs`), or -1 when there is
 * none. A rerun overwrote trace.json but a rerun killed before its end never wrote one, so the
 * last run is not always the recorded one: the runs whose planner and critic calls agree with the
 * recorded counts (exactly, else within the retries the predecessor allowed, else any) are the
 * candidates, and of those the one whose span is closest to the recorded duration stands, the
 * latest on a tie (and without a duration). Pure.
 */
export function recordedRunIndex(runs: readonly LoggedRun[], shape: RecordedRunShape): number {
  if (runs.length === 0) return -1;
  const indices = runs.map((_, i) => i);
  const tiers = [
    indices.filter((i) => exactly(runs[i]!.planner.length, shape.revisions) && exactly(runs[i]!.critic.length, shape.criticCalls)),
    indices.filter((i) => within(runs[i]!.planner.length, shape.revisions) && within(runs[i]!.critic.length, shape.criticCalls)),
    indices,
  ];
  const candidates = tiers.find((t) => t.length > 0)!;
  const distance = (i: number) => (shape.durationSeconds === null ? 0 : Math.abs(spanSeconds(runs[i]!) - shape.durationSeconds));
  return candidates.reduce((best, i) => (distance(i) <= distance(best) ? i : best));
}

/** One engine run of a goal's logs, as a trial takes it. */
export interface MatchedRun {
  /** Its planner and critic calls in the order they happened. */
  calls: LogEntry[];
  /** Which engine run of how many in the logs it is (0-based, in the order they ran), and how the trace's run was told apart, when the logs hold several. */
  position: { index: number; of: number; by: string } | null;
}

/** The engine runs of a goal's logs, in the order they ran, and which one its trace records. */
export interface EngineRuns {
  runs: MatchedRun[];
  /** The run the trace records: an index into `runs`; -1 when there is no trace, or its run is not in the logs. */
  recorded: number;
  /** Calls no engine run takes (a shared log whose runs do not split into its variants'): not imported. */
  unplaced: LogEntry[];
}

/**
 * Every engine run of a goal's logs, in the order they ran, and the one its trace records
 * (recordedRunIndex; none without a trace: `shape` null). Pure.
 */
export function matchRun(planner: readonly LogEntry[], critic: readonly LogEntry[], shape: RecordedRunShape | null): EngineRuns {
  const runs = loggedRuns(planner, critic);
  const by = "its recorded rounds, critic calls and duration agree best";
  return {
    runs: runs.map((r, index) => ({ calls: interleave(r.planner, r.critic), position: runs.length > 1 ? { index, of: runs.length, by } : null })),
    recorded: shape === null ? -1 : recordedRunIndex(runs, shape),
    unplaced: [],
  };
}

/**
 * Merge a run's two call sequences by end time. The log's timestamps are whole seconds, so a fast
 * server's calls tie (and a start derived from a duration would reorder them): then the protocol
 * orders them (a plan is drafted, then reviewed, then revised: protocolRank, from the plan each
 * prompt carries), and where a prompt does not say, the logs' line order (the planner's n-th call
 * before the critic's n-th, which reviews its plan). Each sequence keeps its logged order.
 */
export function interleave(planner: readonly LogEntry[], critic: readonly LogEntry[]): LogEntry[] {
  const out: LogEntry[] = [];
  let i = 0;
  let j = 0;
  const plannerFirst = (p: LogEntry, c: LogEntry) => {
    if (endMs(p) !== endMs(c)) return endMs(p) < endMs(c);
    const [rp, rc] = [protocolRank(p), protocolRank(c)];
    if (rp !== null && rc !== null) return rp < rc;
    return p.call <= c.call;
  };
  while (i < planner.length || j < critic.length) {
    const p = planner[i];
    const c = critic[j];
    const takePlanner = c === undefined || (p !== undefined && plannerFirst(p, c));
    out.push(takePlanner ? p! : c!);
    if (takePlanner) i++;
    else j++;
  }
  return out;
}

/**
 * A log that several traces share (the predecessor's replan dimension ran its three policies
 * through one logging planner): its last run split into engine runs, each beginning with a
 * decompose call; a decompose that retries one whose answer was not accepted (`accepted`) stays
 * in the run it retries. Pure.
 */
export function splitEngineRuns(calls: readonly LogEntry[], accepted: (e: LogEntry) => boolean): LogEntry[][] {
  const out: LogEntry[][] = [];
  for (const [k, e] of calls.entries()) {
    const previous = calls[k - 1];
    const retry = previous !== undefined && isDecompose(previous) && !accepted(previous);
    if (out.length === 0 || (isDecompose(e) && !retry)) out.push([e]);
    else out.at(-1)!.push(e);
  }
  return out;
}
