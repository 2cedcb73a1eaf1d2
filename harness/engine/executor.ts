import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { Goal } from "../../src/formats/goal.ts";
import { ROLES, type CallRecord, type EngineOutcome, type Role } from "../../src/formats/records.ts";
import type { WireForwarder } from "../../src/providers/types.ts";
import type { TrialExecutor } from "../run/execute.ts";
import type { TrialWork } from "../run/work.ts";
import { engineGoal } from "./goal.ts";
import type { LoadedEngine } from "./manifest.ts";
import { EngineProcesses, lastJsonLine, runCommand, type Launch } from "./process.ts";
import { startRecordingProxy, type ProxySession, type RecordingProxy } from "./proxy.ts";
import { readPlannerCriticResult } from "./readers/planner-critic.ts";
import { readFieldtestResult, UnreadableResult, type EngineRun } from "./result.ts";
import { CREDENTIAL_VARIABLE, expand, TemplateError } from "./template.ts";
import { engineTrialOutcome, type EngineEnding } from "./trial.ts";
import { WorkerSlot } from "./worker.ts";

/** Reads an engine's result, in the format its manifest names, into the harness's view of the trial. */
const READERS = {
  fieldtest: (data: unknown, goal: Goal) => readFieldtestResult(data, goal),
  "planner-critic": (data: unknown, goal: Goal, calls: readonly CallRecord[]) => readPlannerCriticResult(data, goal, calls),
} as const;

interface EngineExecutorOptions {
  engine: LoadedEngine;
  /** Each corpus goal as the planner sees it (no expectation). */
  goals: ReadonlyMap<string, Goal>;
  forwarder: WireForwarder;
  /** The model each role asks for: what the engine is told to request. */
  models: Record<Role, string>;
  /** fieldtest's environment: `${VAR}` placeholders read it, and the engine inherits it without anything that looks like a credential. */
  env: NodeJS.ProcessEnv;
  /** Told of every per-trial token, so that it is masked wherever it might be written. */
  onToken?: (token: string) => void;
}

/** A trial executor that also has processes and a server to stop. */
type EngineExecutor = TrialExecutor & { close(): Promise<void> };

/** fieldtest's environment without the variables an engine must never see. */
export function engineEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !CREDENTIAL_VARIABLE.test(name)));
}

/** How an engine's run of one trial ended and what it left: its result data, or an error it reported instead. */
interface EngineTurn {
  ending: EngineEnding;
  stderrTail: string | null;
  data: unknown;
  reported: EngineRun | null;
}

/** What every trial of one engine shares: its scratch folder, its processes and how they are launched. */
interface EngineRunner {
  o: EngineExecutorOptions;
  root: string;
  processes: EngineProcesses;
  launchOf: (values: Record<string, string>) => Launch;
  pool: WorkerPool;
}

/**
 * Runs each trial through an external engine (docs/reference/engine-protocol.md): the recording
 * proxy gets the trial's URLs and tokens, the engine gets its goal (and config) and runs, the
 * proxy's records and the engine's result become the trial's record, fail closed.
 */
export function createEngineExecutor(o: EngineExecutorOptions): EngineExecutor {
  const { manifest } = o.engine;
  const root = mkdtempSync(join(tmpdir(), `fieldtest-engine-${manifest.name}-`));
  const processes = new EngineProcesses();
  const launchOf = launcher(o);
  const runner: EngineRunner = { o, root, processes, launchOf, pool: new WorkerPool(root, processes, launchOf) };
  let proxy: Promise<RecordingProxy> | null = null;
  const proxyOf = () =>
    (proxy ??= startRecordingProxy({ forwarder: o.forwarder, speaks: manifest.speaks, normalize: manifest.replay.normalize, onToken: o.onToken }));

  const executor = (async (work: TrialWork): Promise<EngineOutcome> => {
    const goal = o.goals.get(work.item_id);
    if (goal === undefined) throw new Error(`no corpus goal ${work.item_id} for an engine trial`);
    const session = (await proxyOf()).open({ trialKey: work.key, itemId: work.item_id, trial: work.trial });
    const { ending, stderrTail, data, reported } = await runEngine(runner, work, goal, session);
    const { calls, refused } = await session.close();
    const result = reported ?? (data instanceof NotJson ? `not JSON: ${data.start}` : readResult(manifest.result.format, data, goal, calls));
    return engineTrialOutcome({ goal, calls, refusedRequests: refused, ending, stderrTail, result });
  }) as EngineExecutor;
  executor.close = async () => {
    runner.pool.closeAll();
    processes.stopAll();
    if (proxy) await (await proxy).close();
    rmSync(root, { recursive: true, force: true });
  };
  return executor;
}

/** How the engine's manifest starts it with these placeholder values: its argv, folder and environment. */
function launcher(o: EngineExecutorOptions): (values: Record<string, string>) => Launch {
  const { manifest } = o.engine;
  const baseDir = dirname(resolve(o.engine.file));
  const inherited = engineEnvironment(o.env);
  return (values) => {
    const fill = (text: string) => expand(text, values, o.env);
    const env = { ...inherited, ...Object.fromEntries(Object.entries(manifest.start.env).map(([k, v]) => [k, fill(v)])) };
    // Relative paths are the manifest folder's, as the engine's author wrote them.
    const cwd = resolve(baseDir, fill(manifest.start.cwd ?? "."));
    return { argv: manifest.start.argv.map(fill), cwd, env };
  };
}

/** Worker slots, one per trial in flight at the most: a slot is made when every one is busy, and kept. */
class WorkerPool {
  private readonly workers: WorkerSlot[] = [];
  private readonly idle: WorkerSlot[] = [];

  constructor(
    private readonly root: string,
    private readonly processes: EngineProcesses,
    private readonly launchOf: (values: Record<string, string>) => Launch,
  ) {}

  take(): WorkerSlot {
    return this.idle.pop() ?? this.newSlot(this.workers.length);
  }

  give(slot: WorkerSlot): void {
    this.idle.push(slot);
  }

  closeAll(): void {
    for (const w of this.workers) w.close();
  }

  private newSlot(slot: number): WorkerSlot {
    const dir = join(this.root, `slot-${slot}`);
    mkdirSync(dir, { recursive: true });
    const worker = new WorkerSlot(this.processes, () => this.launchOf({ slot: String(slot), slot_dir: dir }));
    this.workers.push(worker);
    return worker;
  }
}

/** Runs the engine on one trial in a scratch folder of its own, as its manifest's protocol says. */
async function runEngine(runner: EngineRunner, work: TrialWork, goal: Goal, session: ProxySession): Promise<EngineTurn> {
  const trialDir = mkdtempSync(join(runner.root, "trial-"));
  try {
    const translated = engineGoal(runner.o.engine.manifest.goal.format, goal);
    return runner.o.engine.manifest.protocol === "worker"
      ? await workerTurn(runner, work, translated, session)
      : await commandTurn(runner, work, translated, session, trialDir);
  } catch (e) {
    if (!(e instanceof TemplateError)) throw e;
    return templateFailure(e);
  } finally {
    rmSync(trialDir, { recursive: true, force: true });
  }
}

function templateFailure(e: TemplateError): EngineTurn {
  return { ending: { kind: "failed", message: `its manifest could not be filled in: ${e.message}` }, stderrTail: null, data: undefined, reported: null };
}

/** The trial as one turn of a long-lived worker: its goal and roles on stdin, its result back. */
async function workerTurn({ o, pool }: EngineRunner, work: TrialWork, translated: unknown, session: ProxySession): Promise<EngineTurn> {
  const slot = pool.take();
  try {
    const roles = Object.fromEntries(
      ROLES.map((role) => [role, { base_url: session.roles[role].base_url, model: o.models[role], token: session.roles[role].token }]),
    );
    const turn = await slot.run(work.key, { trial_key: work.key, goal: translated, roles }, o.engine.manifest.start.timeout_s * 1000);
    const reported: EngineRun | null = turn.error !== null ? { status: "error", reasons: [], error: turn.error, rounds: [] } : null;
    return { ending: turn.ending, stderrTail: turn.stderrTail, data: turn.result, reported };
  } finally {
    pool.give(slot);
  }
}

/** The trial as a command of its own: its goal (and config) written to files, its result read from stdout or a file. */
async function commandTurn(
  { o, processes, launchOf }: EngineRunner,
  work: TrialWork,
  translated: unknown,
  session: ProxySession,
  trialDir: string,
): Promise<EngineTurn> {
  const { manifest } = o.engine;
  const roleValues = Object.fromEntries(
    ROLES.flatMap((role) => [
      [`${role}.base_url`, session.roles[role].base_url],
      [`${role}.model`, o.models[role]],
      [`${role}.token`, session.roles[role].token],
    ]),
  );
  const base = { ...roleValues, trial_dir: trialDir, goal_id: work.item_id, trial: String(work.trial), trial_key: work.key };
  const goalFile = resolve(trialDir, expand(manifest.goal.path, base, o.env));
  const configFile = manifest.config ? resolve(trialDir, expand(manifest.config.path, { ...base, goal_file: goalFile }, o.env)) : "";
  const values = { ...base, goal_file: goalFile, config_file: configFile };
  writeFileOf(goalFile, `${JSON.stringify(translated, null, 2)}\n`);
  if (manifest.config) writeFileOf(configFile, expand(o.engine.template!, values, o.env));
  const end = await runCommand(processes, launchOf(values), manifest.start.timeout_s * 1000, manifest.start.ok_exit_codes);
  const turn = { ending: end.ending, stderrTail: end.stderrTail, reported: null };
  if (manifest.result.from === "stdout") return { ...turn, data: lastJsonLine(end.stdout) };
  try {
    const file = resolve(trialDir, expand(manifest.result.path!, values, o.env));
    return { ...turn, data: existsSync(file) ? parsedOrText(readFileSync(file, "utf8")) : undefined };
  } catch (e) {
    if (!(e instanceof TemplateError)) throw e;
    // The command ran: what it wrote on stderr is kept.
    return { ...templateFailure(e), stderrTail: end.stderrTail };
  }
}

function readResult(format: keyof typeof READERS, data: unknown, goal: Goal, calls: readonly CallRecord[]): EngineRun | string | null {
  if (data === undefined) return null;
  try {
    return READERS[format](data, goal, calls);
  } catch (e) {
    if (e instanceof UnreadableResult) return e.message;
    throw e;
  }
}

function writeFileOf(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A result file that is not JSON: unreadable, with its start for the record. */
class NotJson {
  constructor(readonly start: string) {}
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return new NotJson(text.trim().slice(0, 120));
  }
}
