import { existsSync } from "node:fs";
import { join } from "node:path";
import { recordedCorpus, type Corpus } from "../corpus/load.ts";
import { InputError } from "../../src/formats/load.ts";
import type { SimProfile } from "../../src/sim/profile.ts";
import { ROLES, trialKey, type CallRecord, type Role, type Spend } from "../../src/formats/records.ts";
import { answeredCalls, type AnsweredCalls } from "../../src/providers/answered.ts";
import { CallJournal, readJournaledCalls } from "./call-journal.ts";
import type { AttemptEvent } from "../../src/providers/types.ts";
import type { ConfigFile } from "../config.ts";
import type { LoopDelay, LoopMonitor } from "../../src/event-loop.ts";
import { BudgetGuard, estimateSweep, formatSpend, refuseByEstimate, type PriceOf, type SweepEstimate } from "./budget.ts";
import { executeTrials, StopControl, type TrialExecutor } from "./execute.ts";
import { NO_SPEND, readSpend, SpendJournal, SpendTally } from "./journal.ts";
import { acquireLock, claimOutDir, type LockOptions } from "./lock.ts";
import { readManifest, runIdFor, totalsOf } from "./manifest.ts";
import { mostlyErrors } from "./outage.ts";
import { Progress, formatUsd, isInteractive, loopText, startPlainProgress } from "./progress.ts";
import { redactArgv } from "./redact.ts";
import { rawStream } from "../cli/printing.ts";
import {
  configHash,
  diffValues,
  FRESH_ONLY,
  missingCredentials,
  recordedConfig,
  resolveRun,
  withheldCredentials,
  type Fingerprint,
  type ResolvedRun,
  type RunCli,
} from "./settings.ts";
import { resumeCommand } from "./resume-command.ts";
import { duplicatesWarning, isStorageFailure, readTrialLog, RUN_FILES, trialHead, TrialLog, writeJsonAtomic, type TrialHead } from "./store.ts";
import { formatSummary, formatTable, summarizeByCategory } from "./summary.ts";
import { compareTrials, pendingTrials, planTrials, selectItems, shardTrials, type TrialWork, type WorkItem } from "./work.ts";
import type { EngineIdentity } from "../engine/identity.ts";
import type { LiveProvider } from "../../src/providers/registry.ts";
import { CRASHED, MANIFEST_SCHEMA_VERSION, type Manifest, type RunState, type Session } from "../../src/formats/manifest.ts";
import { IMPORTED_SUITE, type RunConfig } from "../../src/formats/run-config.ts";

/** A function that does its work at its first call only. */
function once(run: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | null = null;
  return () => (done ??= run());
}

/** Exit codes of a run a signal stopped, as a shell reports a process it ended (128 + the signal's number). */
export const EXIT_SIGNALLED = { SIGINT: 130, SIGTERM: 143 } as const;

interface CanaryOutcome {
  ok: boolean;
  results: unknown;
  failures: string[];
}

/** Asked and told of every provider send, with the key of the trial that makes it. */
export interface CallHooks {
  beforeCall(role: Role, trialKey: string | null): "ok" | "budget_exceeded";
  /** Every provider send as it leaves and returns: journaled before the call is recorded. */
  onAttempt(event: AttemptEvent, trialKey: string | null): void;
  /** Every call that sent something, as it completes: journaled before its trial is recorded. */
  onCall(record: CallRecord, trialKey: string | null, failure: string | null): void;
  /** The calls earlier sessions made for the trials this one runs again from their start (a resume). */
  answered: AnsweredCalls;
}

/** What the runner needs from the rest of fieldtest (wired in harness/assembly.ts, faked in tests). */
export interface SweepEngine {
  loadCorpus(): Corpus;
  loadProfile(path: string): SimProfile;
  /** The gate canaries and the canaries of every pack the run enables. */
  runCanaries(config: RunConfig): CanaryOutcome;
  /** Prompt, schema, gate and sim-profile hashes (covered by the config hash) and the per-role summary. */
  describe(config: RunConfig): { fingerprint: Fingerprint; roles: Manifest["roles"]; gateVersions: Record<string, unknown>; priceTableVersion: string | null };
  price: PriceOf;
  /** Throws an InputError when a role needs an API key that is not set. */
  checkApiKeys(config: RunConfig): void;
  /**
   * Starts loading what the run's providers need before their first call (an SDK on the HTTP
   * thread), while the sweep prepares; `concurrency` is the most sends the sweep starts at once.
   */
  warmUp?(config: RunConfig, concurrency: number): void;
  /** Watches the event loop of the thread that makes and times the run's HTTP calls, while the trials run; null when the run makes none. */
  watchSendLoop?(config: RunConfig): { stop(): Promise<LoopDelay | null> } | null;
  /** The trial executor; one with `close` (an external engine's processes and proxy) is closed when the sweep ends. */
  createExecutor(config: RunConfig, corpus: Corpus, hooks: CallHooks): TrialExecutor & { close?(): Promise<void> };
  /** Loads an external engine's manifest and asks the engine its version (`--engine FILE`). */
  identifyEngine?(file: string): EngineIdentity & { speaks: LiveProvider };
  /**
   * Writes summary.json, report.md, report.html and trials.csv; returns the paths, the headline
   * metrics as text lines and the ids of items that failed their expectation.
   */
  writeReport?(dir: string): RunReport;
}

export interface RunReport {
  paths: string[];
  headline: string[];
  expectationFailures: string[];
}

/** The process edge: clock, identity, streams, signals, git. */
export interface SweepHost {
  now(): Date;
  randomId(): string;
  /** The command line as typed (without `node bin/...`), recorded after redaction. */
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  onSignal(handler: (signal: "SIGINT" | "SIGTERM") => void): () => void;
  git(): Promise<{ sha: string | null; dirty: boolean | null }>;
  harnessVersion: string;
  /** Starts measuring this process's event-loop delay (absent: not measured). */
  monitorEventLoop?(): LoopMonitor;
  /** Told the run folder a session writes, once it holds it (the API's runSweep returns it). */
  onRunFolder?(dir: string): void;
}

function corpusItems(corpus: Corpus): WorkItem[] {
  return [
    ...corpus.goals.map(({ goal }) => ({
      suite: "corpus" as const,
      item_id: goal.id,
      domain: goal.domain,
      category: goal.category,
      item_hash: corpus.itemHashes[`corpus/${goal.id}`]!,
    })),
    ...corpus.fixtures.map(({ fixture }) => ({
      suite: "boundary" as const,
      item_id: fixture.id,
      domain: fixture.goal.domain,
      category: null,
      item_hash: corpus.itemHashes[`boundary/${fixture.id}`]!,
    })),
    ...(["security", "injection"] as const).flatMap((suite) =>
      corpus[suite].map(({ id, fixture }) => ({
        suite,
        item_id: id,
        domain: fixture.goal.domain,
        category: null,
        item_hash: corpus.suiteItemHashes[`${suite}/${id}`]!,
      })),
    ),
  ];
}

const itemKey = (it: Pick<WorkItem, "suite" | "item_id">) => `${it.suite}/${it.item_id}`;

function printEstimate(out: NodeJS.WriteStream, est: SweepEstimate, counts: { corpus: number; boundary: number }, shardNote: string): void {
  out.write(`dry run: ${counts.corpus} engine trials, ${counts.boundary} critic-only trials${shardNote}; nothing is called or written\n\n`);
  out.write(
    `${formatTable(
      ["role", "provider/model", "calls", "max calls", "input tokens", "output tokens", "cost"],
      [
        ...est.roles.map((r) => [r.role, `${r.provider}/${r.model}`, r.calls, r.maxCalls, r.inputTokens, r.outputTokens, formatUsd(r.costUsd)]),
        [
          "total",
          "",
          est.calls,
          est.roles.reduce((n, r) => n + r.maxCalls, 0),
          est.roles.reduce((n, r) => n + r.inputTokens, 0),
          est.roles.reduce((n, r) => n + r.outputTokens, 0),
          formatUsd(est.costUsd),
        ],
      ],
    )}\n\nhow the estimate is derived:\n`,
  );
  for (const r of est.roles) for (const line of r.derivation) out.write(`  ${r.role}: ${line}\n`);
}

/** What a resume's dry run adds: what the journal says was spent, and what the limits leave. */
function printSpent(
  out: NodeJS.WriteStream,
  spent: Spend,
  sessions: number,
  limits: { budgetUsd: number | null; maxCalls: number | null },
  est: SweepEstimate,
): void {
  out.write(`\nalready spent (spend journal, ${sessions} session(s)): ${spent.calls} calls, ${formatSpend(spent)}\n`);
  if (limits.maxCalls !== null)
    out.write(`--max-calls ${limits.maxCalls}: ${Math.max(0, limits.maxCalls - spent.calls)} calls left for an estimated ${est.calls}\n`);
  if (limits.budgetUsd !== null)
    out.write(
      `--budget-usd ${limits.budgetUsd}: $${Math.max(0, limits.budgetUsd - spent.cost_usd).toFixed(4)} left for an estimated ${formatUsd(est.costUsd)}\n`,
    );
}

/** Engine trials, and critic-only ones: boundary, security and injection trials make one critic call each. */
const countsOf = (trials: readonly TrialWork[]) => ({
  corpus: trials.filter((t) => t.suite === "corpus").length,
  boundary: trials.filter((t) => t.suite !== "corpus").length,
});

function estimateOf(trials: readonly TrialWork[], resolved: ResolvedRun, engine: SweepEngine): SweepEstimate {
  const counts = countsOf(trials);
  return estimateSweep({ corpusTrials: counts.corpus, boundaryTrials: counts.boundary }, resolved.config, resolved.estimate, engine.price);
}

interface Prepared {
  dir: string;
  resolved: ResolvedRun;
  corpus: Corpus;
  items: WorkItem[];
  plan: TrialWork[];
  owned: TrialWork[];
  manifest: Manifest;
  recorded: TrialHead[];
  /** The trial log's complete lines: the earlier sessions' records, a key's re-runs included. */
  loggedLines: number;
  /** What the run's journal says every earlier session spent. */
  spent: SpendTally;
  /** The estimate for the trials this session runs (its cost per call is what the budget reserves per send until one returns). */
  estimate: SweepEstimate;
}

/** What a command asks and runs with: its options, the configuration file, the engine and the process edge. */
interface SweepCommand {
  cli: RunCli;
  file: ConfigFile;
  engine: SweepEngine;
  host: SweepHost;
  started: Date;
  lockOptions: LockOptions;
}

/** `fieldtest run`: a fresh sweep or `--resume DIR`. Returns the exit code. */
export async function runSweep(cli: RunCli, file: ConfigFile, engine: SweepEngine, host: SweepHost): Promise<number> {
  const lockOptions: LockOptions = { now: host.now, breakLock: cli.breakLock === true, notify: (line) => host.stderr.write(`fieldtest: ${line}\n`) };
  const command: SweepCommand = { cli, file, engine, host, started: host.now(), lockOptions };
  return cli.resume !== undefined ? resumeSweep(command, cli.resume) : freshSweep(command);
}

/** The corpus, once the configuration is known: a live provider's SDK loads on its thread meanwhile. */
function loadCorpusFor({ cli, engine }: SweepCommand, { config, operational }: ResolvedRun): Corpus {
  if (!cli.dryRun) engine.warmUp?.(config, operational.concurrency);
  return engine.loadCorpus();
}

function refused(host: SweepHost, refusal: string): number {
  host.stderr.write(`fieldtest: budget refused: ${refusal}; nothing was called (see --dry-run)\n`);
  return 3;
}

/** `--resume DIR`: the recorded run, checked unchanged, goes on under its lock. */
async function resumeSweep(command: SweepCommand, dir: string): Promise<number> {
  const { cli, host } = command;
  const { manifest, resolved, corpus } = resumable(command, dir);
  const items = selectItems(corpusItems(corpus), resolved.config);
  const plan = planTrials(items, resolved.config.trials);
  const owned = shardTrials(plan, manifest.plan.shard);
  const missing = cli.dryRun ? [] : missingCredentials(resolved.config, manifest.withheld_credentials);
  if (missing.length)
    throw new InputError("command line", "--header/--base-url", `the run used credentials that are never recorded; pass them again: ${missing.join(", ")}`);
  return onRunFolder(dir, host, async () => {
    // The lock first: the journal and the log are read as no one else is writing them.
    const release = cli.dryRun ? () => {} : acquireLock(dir, command.lockOptions);
    if (!cli.dryRun) host.onRunFolder?.(dir);
    try {
      return await resumeLocked(command, { dir, resolved, corpus, items, plan, owned, manifest });
    } finally {
      release();
    }
  });
}

/** The recorded run to resume, its configuration resolved; bad input when the command line, the configuration or the corpus no longer match it. */
function resumable(command: SweepCommand, dir: string): { manifest: Manifest; resolved: ResolvedRun; corpus: Corpus } {
  const { cli, file, engine } = command;
  const stray = FRESH_ONLY.find((k) => cli[k] !== undefined);
  if (stray)
    throw new InputError(
      "command line",
      `--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
      "cannot be combined with --resume (the recorded run's value stands)",
    );
  const manifest = readManifest(dir);
  if (manifest.spend === null && manifest.config.suites[0] !== IMPORTED_SUITE) {
    throw new InputError(
      join(dir, RUN_FILES.manifest),
      "schema_version",
      "recorded by an older fieldtest, without a spend journal: what it spent is unknown, so a resume could not keep to a budget; run it again",
    );
  }
  const resolved = resolveRun(file, cli, {
    recorded: {
      config: manifest.config,
      operational: {
        concurrency: manifest.operational.concurrency,
        budgetUsd: manifest.operational.budget_usd,
        maxCalls: manifest.operational.max_calls,
        shard: manifest.plan.shard,
      },
    },
    loadProfile: engine.loadProfile,
  });
  const corpus = loadCorpusFor(command, resolved);
  const described = engine.describe(resolved.config);
  const hash = configHash(resolved.config, described.fingerprint);
  if (hash !== manifest.config_hash) {
    const diff = [
      ...diffValues(manifest.config, recordedConfig(resolved.config), "config"),
      ...diffValues(manifest.fingerprint, described.fingerprint, "fingerprint"),
    ];
    // One line, as every bad-input message: the differences side by side.
    throw new InputError(dir, "config", `differs from the recorded run, refusing to resume: ${diff.join("; ") || "(hash differs)"}`);
  }
  const now = recordedCorpus(corpus, resolved.config.suites);
  if (now.hash !== manifest.corpus.hash) {
    const changed = diffValues(manifest.corpus.items, now.items).map((l) => l.split(":")[0]);
    throw new InputError(
      dir,
      "corpus",
      `changed since the run started, refusing to resume (items: ${changed.slice(0, 8).join(", ")}${changed.length > 8 ? ", ..." : ""})`,
    );
  }
  return { manifest, resolved, corpus };
}

/** A resume whose lock is held: its dry run, its budget check against what was spent, then the trials left. */
async function resumeLocked(command: SweepCommand, run: Omit<Prepared, "recorded" | "loggedLines" | "spent" | "estimate">): Promise<number> {
  const { cli, engine, host } = command;
  const { dir, resolved, owned, manifest } = run;
  const log = readTrialLog(dir, trialHead);
  const { tally } = readSpend(dir);
  const pending = pendingTrials(owned, log.records, cli.retryErrors === true);
  const est = estimateOf(pending, resolved, engine);
  if (cli.dryRun) {
    printEstimate(host.stdout, est, countsOf(pending), ` left of ${owned.length} (resume of ${dir})`);
    printSpent(host.stdout, tally.total(), tally.sessionIds().length, resolved.operational, est);
    return 0;
  }
  const refusal = refuseByEstimate(est, resolved.operational, tally.total());
  if (refusal) {
    refreshSpend(manifest, tally, log.lines);
    // No session runs now: a run its last session left `running` (a crash) stands stopped by its budget, with its totals from the log.
    if (manifest.state === "running") manifest.state = "budget_stopped";
    manifest.totals = totalsOf(log.records);
    writeJsonAtomic(join(dir, RUN_FILES.manifest), manifest);
    return refused(host, `${refusal}; raise the limit on resume (--budget-usd X, --max-calls N)`);
  }
  engine.checkApiKeys(resolved.config);
  if (log.torn > 0) host.stderr.write(`fieldtest: ${join(dir, RUN_FILES.trials)}: ignored a torn last line from an interrupted write\n`);
  if (log.duplicates.length > 0) host.stderr.write(`fieldtest: warning: ${dir}: ${duplicatesWarning(log.duplicates)}\n`);
  return execute({ ...run, recorded: log.records, loggedLines: log.lines, spent: tally, estimate: est }, cli, engine, host, command.started);
}

/** A new run: its selection planned and priced, its folder claimed, its manifest written by the first session. */
async function freshSweep(command: SweepCommand): Promise<number> {
  const { cli, file, engine, host, started } = command;
  const resolved = resolveRun(file, cli, { loadProfile: engine.loadProfile, readReplaySource: readManifest, identifyEngine: engine.identifyEngine });
  const corpus = loadCorpusFor(command, resolved);
  const items = selectedItems(corpus, resolved, cli);
  const plan = planTrials(items, resolved.config.trials);
  const owned = shardTrials(plan, resolved.operational.shard);
  const described = engine.describe(resolved.config);
  const est = estimateOf(owned, resolved, engine);
  const shard = resolved.operational.shard;
  if (cli.dryRun) {
    printEstimate(host.stdout, est, countsOf(owned), shard ? ` (shard ${shard.index}/${shard.count} of ${plan.length})` : "");
    return 0;
  }
  const refusal = refuseByEstimate(est, resolved.operational);
  if (refusal) return refused(host, refusal);
  engine.checkApiKeys(resolved.config);
  // A replayed run's trials are read before --out is claimed: a source that cannot be read is bad
  // input that leaves no half-made run folder behind (a rerun would need --force).
  for (const runDir of new Set(ROLES.flatMap((role) => resolved.config.client[role].replay?.runDir ?? []))) readTrialLog(runDir, trialHead);
  const runId = runIdFor(started, host.randomId());
  const dir = cli.out ?? join("runs", runId);
  const release = claimOutDir(dir, { ...command.lockOptions, force: cli.force === true });
  host.onRunFolder?.(dir);
  try {
    const manifest = newManifest(runId, resolved, described, corpus, { items, plan, owned }, started, host, await host.git());
    return await onRunFolder(dir, host, () =>
      execute(
        { dir, resolved, corpus, items, plan, owned, manifest, recorded: [], loggedLines: 0, spent: new SpendTally(), estimate: est },
        cli,
        engine,
        host,
        started,
      ),
    );
  } finally {
    release();
  }
}

/** The items the run selects; bad input, naming where the selection came from, when it selects none. */
function selectedItems(corpus: Corpus, resolved: ResolvedRun, cli: RunCli): WorkItem[] {
  const items = selectItems(corpusItems(corpus), resolved.config);
  if (items.length === 0) {
    // The selection may come from the flags or from the config file's only, domain and category: say which.
    const fromFlags = cli.only !== undefined || cli.domain !== undefined || cli.category !== undefined;
    const where = fromFlags ? ["command line", "--only/--domain/--category"] : [cli.config ?? "fieldtest.config.yaml", "only/domain/category"];
    throw new InputError(where[0]!, where[1]!, "the selection matches no corpus goal or boundary fixture");
  }
  return items;
}

/** A fresh run's manifest: what it runs, with what, on what, before any session. */
function newManifest(
  runId: string,
  resolved: ResolvedRun,
  described: ReturnType<SweepEngine["describe"]>,
  corpus: Corpus,
  { items, plan, owned }: { items: WorkItem[]; plan: TrialWork[]; owned: TrialWork[] },
  started: Date,
  host: SweepHost,
  git: Manifest["git"],
): Manifest {
  return {
    schema_version: MANIFEST_SCHEMA_VERSION,
    run_id: runId,
    state: "running",
    started_at: started.toISOString(),
    finished_at: null,
    harness: { name: "fieldtest", version: host.harnessVersion },
    git,
    node: process.version,
    command: ["fieldtest", ...redactArgv(host.argv)],
    config: recordedConfig(resolved.config),
    config_hash: configHash(resolved.config, described.fingerprint),
    fingerprint: described.fingerprint,
    gate_versions: described.gateVersions,
    price_table_version: described.priceTableVersion,
    roles: described.roles,
    corpus: recordedCorpus(corpus, resolved.config.suites),
    plan: {
      items: items.map(itemKey).sort(),
      trials: resolved.config.trials,
      planned: plan.length,
      shard: resolved.operational.shard,
      shard_planned: owned.length,
    },
    operational: { concurrency: resolved.operational.concurrency, budget_usd: resolved.operational.budgetUsd, max_calls: resolved.operational.maxCalls },
    canary: null,
    sessions: [],
    spend: NO_SPEND,
    withheld_credentials: withheldCredentials(resolved.config),
    totals: { recorded: 0, errors: 0, calls: 0, cost_usd: 0 },
    merged_from: null,
  };
}

/**
 * Runs `body` on a run folder. A failure of its storage (a full disk, a folder that may no longer
 * be written), wherever it comes (the lock, the manifest, a log, a record), ends the command with
 * one line that names the run and what to do next (exit 3), never the bare system error. Nothing
 * more was spent after it: what was in flight is abandoned, and a resume re-runs it.
 */
async function onRunFolder(dir: string, host: SweepHost, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (e) {
    if (!isStorageFailure(e)) throw e;
    const next = existsSync(join(dir, RUN_FILES.manifest))
      ? `every trial written before is kept. Fix the storage, then resume with:\n  ${resumeCommand(dir)}`
      : "nothing of it was recorded. Fix the storage, then run it again (--force reuses the folder)";
    host.stderr.write(`\nfieldtest: run ${dir}: its records cannot be written (${(e as Error).message}); ${next}\n`);
    return 3;
  }
}

/**
 * Brings the manifest's record of earlier sessions up to date, under the run's lock: a session that
 * never said how it ended died with its process, and every session's spend is what the journal says.
 * Sessions hold the lock one at a time, so the lines a crashed session wrote are the log's lines
 * past those it found at its start (recorded then; for a session recorded before that, the log's
 * lines less those every other session said it wrote, in a run that is no merge of shards).
 */
function refreshSpend(manifest: Manifest, tally: SpendTally, loggedLines: number): void {
  // At most one session is still marked running: each session marks its predecessor before it saves.
  const told = manifest.sessions.reduce((n, s) => (s.outcome === "running" ? n : n + s.trials_written), 0);
  for (const s of manifest.sessions.filter((x) => x.outcome === "running")) {
    s.outcome = CRASHED;
    const since = s.log_lines_at_start ?? (manifest.merged_from === null ? told : null);
    if (since !== null) s.trials_written = Math.max(s.trials_written, loggedLines - since);
  }
  for (const s of manifest.sessions) s.spend = tally.session(s.id);
  manifest.spend = tally.total();
}

/** One session of a run as its steps share it: the heads hold one per trial key, the earlier records' and this session's. */
interface SessionRun {
  prep: Prepared;
  session: Session;
  heads: Map<string, TrialHead>;
  host: SweepHost;
}

/** Runs the pending trials of a prepared run whose lock the caller holds. */
async function execute(prep: Prepared, cli: RunCli, engine: SweepEngine, host: SweepHost, started: Date): Promise<number> {
  const { dir, resolved, manifest, spent: tally } = prep;
  refreshSpend(manifest, tally, prep.loggedLines);
  const session = newSession(prep, host, started);
  const before = tally.total();
  const journal = new SpendJournal(dir, session.id, host.now);
  const calls = new CallJournal(dir, session.id);
  const log = new TrialLog(dir);
  const pending = pendingTrials(prep.owned, prep.recorded, cli.retryErrors === true);
  markRunning(prep, session, pending, before, host);
  const run: SessionRun = { prep, session, host, heads: new Map(prep.recorded.map((h) => [trialKey(h), h])) };
  const answered = callsToAnswer(dir, pending, run.heads);

  const stop = new StopControl();
  const guard = new BudgetGuard(resolved.operational, before, {
    dearest: tally.dearest,
    estimate: Object.fromEntries(prep.estimate.roles.map((r) => [r.role, r.costPerCallUsd])),
  });
  let disposeSignals = () => {};
  let reporter: { stop(): void } | null = null;
  let loop: LoopMonitor | null = null;
  let closeExecutor: () => Promise<void> = async () => {};
  try {
    if (!passedCanaries(prep, engine, host)) return finish(run, "canary_failed", 3);

    const written = new Set<string>();
    loop = host.monitorEventLoop?.() ?? null;
    const sendLoop = engine.watchSendLoop?.(resolved.config) ?? null;
    const progress = new Progress(
      prep.owned,
      pending,
      host.now().getTime(),
      () => tally.session(session.id),
      () => loop?.read() ?? null,
    );
    const storage = new StorageWatch(guard, stop);
    const executor = engine.createExecutor(resolved.config, prep.corpus, {
      ...spendHooks(tally, guard, stop, storage, journal, calls),
      answered,
    });
    closeExecutor = once(async () => executor.close?.());
    const signals = stopOnSignals(host, stop, guard);
    disposeSignals = signals.dispose;
    const itemHash = new Map(prep.items.map((it) => [itemKey(it), it.item_hash]));
    host.stderr.write(
      `fieldtest: run ${dir}: ${pending.length} of ${prep.owned.length} trials to run${manifest.plan.shard ? ` (shard ${manifest.plan.shard.index}/${manifest.plan.shard.count})` : ""}\n`,
    );
    reporter = await startReporter(host, progress);
    await executeTrials({
      trials: pending,
      concurrency: resolved.operational.concurrency,
      execute: executor,
      itemHash: (w) => itemHash.get(itemKey(w))!,
      write: (record) => {
        storage.recorded(() => log.append(record));
        run.heads.set(trialKey(record), trialHead(record));
        written.add(trialKey(record));
        session.trials_written++;
      },
      stop,
      wasCut: (key) => guard.wasCut(key),
      now: host.now,
      onEvent: (e) => progress.onEvent(e),
    });
    // An engine's processes end with the trials (an abandoned sweep's in-flight ones are stopped here).
    await closeExecutor();
    reporter.stop();
    reporter = null;
    manifest.operational.event_loop = loop?.stop() ?? null;
    loop = null;
    manifest.operational.http_thread_loop = (await sendLoop?.stop()) ?? null;
    storage.rethrow();
    return sessionEnd(run, { pending, written, stop, guard, stoppedBy: signals.stoppedBy() }, cli, engine);
  } finally {
    reporter?.stop();
    loop?.stop();
    disposeSignals();
    await closeExecutor();
    log.close();
    journal.close();
    calls.close();
  }
}

function newSession(prep: Prepared, host: SweepHost, started: Date): Session {
  return {
    id: `${prep.manifest.sessions.length + 1}-${host.randomId()}`,
    command: ["fieldtest", ...redactArgv(host.argv)],
    started_at: started.toISOString(),
    finished_at: null,
    outcome: "running",
    trials_written: 0,
    log_lines_at_start: prep.loggedLines,
    spend: NO_SPEND,
  };
}

const saveManifest = ({ dir, manifest }: Prepared) => writeJsonAtomic(join(dir, RUN_FILES.manifest), manifest);

/** Records the session in the manifest, the run as running under this session's limits, before any trial runs. */
function markRunning(prep: Prepared, session: Session, pending: readonly TrialWork[], before: Spend, host: SweepHost): void {
  const { manifest, resolved } = prep;
  manifest.sessions.push(session);
  // A completed run resumed with nothing left to run stays completed while this session rewrites
  // its reports: a session killed meanwhile must not leave it marked running.
  if (!(pending.length === 0 && manifest.state === "completed")) {
    manifest.state = "running";
    manifest.finished_at = null;
  }
  manifest.spend = before;
  manifest.operational = {
    concurrency: resolved.operational.concurrency,
    budget_usd: resolved.operational.budgetUsd,
    max_calls: resolved.operational.maxCalls,
  };
  saveManifest(prep);
  if (before.unknown_cost_calls > 0) {
    host.stderr.write(
      `fieldtest: note: ${before.unknown_cost_calls} earlier call(s) have unknown cost (no usage reported, a timeout, or in flight at a crash); the run has spent ${formatSpend(before)}\n`,
    );
  }
}

/** Runs the canaries and records their outcome; false (said on stderr) when one failed. */
function passedCanaries(prep: Prepared, engine: SweepEngine, host: SweepHost): boolean {
  const canary = engine.runCanaries(prep.resolved.config);
  prep.manifest.canary = canary;
  // Recorded at once: a run killed later still says its canaries passed.
  if (canary.ok) saveManifest(prep);
  else host.stderr.write(`fieldtest: canary failed, no LLM call was made:\n  ${canary.failures.join("\n  ")}\n`);
  return canary.ok;
}

/** A trial an earlier session cut off (a crash, Ctrl-C, a budget) runs again from its start, its answered calls taken from the call journal: only the call that was in flight is sent again. */
function callsToAnswer(dir: string, pending: readonly TrialWork[], heads: ReadonlyMap<string, TrialHead>): AnsweredCalls {
  const again = new Set(pending.map((t) => t.key).filter((key) => !heads.has(key)));
  return answeredCalls(readJournaledCalls(dir, (key) => again.has(key)));
}

/** A record that cannot be written stops all spending at once; the sweep then ends on that error. */
class StorageWatch {
  private failure: unknown = null;

  constructor(
    private readonly guard: BudgetGuard,
    private readonly stop: StopControl,
  ) {}

  recorded<T>(write: () => T): T {
    try {
      return write();
    } catch (e) {
      if (isStorageFailure(e)) {
        this.failure ??= e;
        this.guard.close("storage");
        this.stop.stop("abandon", "storage");
      }
      throw e;
    }
  }

  /** Throws the first storage failure a write met, once the trials have stopped. */
  rethrow(): void {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what `recorded` caught, as it came
    if (this.failure !== null) throw this.failure;
  }
}

/** The budget's say over every send, and the spend and call journals each send is written to first. */
function spendHooks(
  tally: SpendTally,
  guard: BudgetGuard,
  stop: StopControl,
  storage: StorageWatch,
  journal: SpendJournal,
  calls: CallJournal,
): Omit<CallHooks, "answered"> {
  const stopWhenTripped = () => {
    if (guard.tripped !== null && stop.mode === "run") stop.stop("drain", guard.tripped);
  };
  return {
    beforeCall: (role, trialKey) => {
      const verdict = guard.beforeCall(role, trialKey);
      stopWhenTripped();
      return verdict;
    },
    onAttempt: (event, trialKey) => {
      const line = storage.recorded(() => journal.record(event, trialKey));
      tally.add(line);
      guard.onSpend(line);
      stopWhenTripped();
    },
    onCall: (record, trialKey, failure) => {
      if (trialKey !== null) storage.recorded(() => calls.record(trialKey, record, failure));
    },
  };
}

/**
 * The first Ctrl-C drains, whatever else is already stopping the run (a budget drains too, and its
 * in-flight trials are paid for); a second one, or SIGTERM, abandons them. `stoppedBy` is the first
 * signal: its exit code is the run's (Ctrl-C then SIGTERM is still an interrupted run).
 */
function stopOnSignals(host: SweepHost, stop: StopControl, guard: BudgetGuard): { dispose: () => void; stoppedBy: () => keyof typeof EXIT_SIGNALLED | null } {
  let interrupts = 0;
  let stoppedBy: keyof typeof EXIT_SIGNALLED | null = null;
  const dispose = host.onSignal((signal) => {
    stoppedBy ??= signal;
    if (signal === "SIGINT" && interrupts++ === 0 && stop.mode !== "abandon") {
      const already = stop.mode === "drain" ? `already stopping (${stop.reason})` : "stopping";
      host.stderr.write(`\nfieldtest: ${already}: finishing the trials in flight (Ctrl-C again to abandon them)\n`);
      stop.stop("drain", "interrupted");
    } else {
      stop.stop("abandon", "interrupted");
      guard.close("interrupted");
    }
  });
  return { dispose, stoppedBy: () => stoppedBy };
}

/** ink (with its layout engine) is loaded only for a terminal: CI and piped runs never need it. */
async function startReporter(host: SweepHost, progress: Progress): Promise<{ stop(): void }> {
  const clock = () => host.now().getTime();
  return isInteractive(host.stderr, host.env)
    ? (await import("./progress-view.tsx")).startProgress(progress, clock, rawStream(host.stderr), host.env)
    : startPlainProgress(progress, clock, host.stderr);
}

/** How the session's trials stopped: what it ran, what it wrote, and what stopped it. */
interface Stopped {
  pending: readonly TrialWork[];
  written: ReadonlySet<string>;
  stop: StopControl;
  guard: BudgetGuard;
  stoppedBy: keyof typeof EXIT_SIGNALLED | null;
}

/** Ends the session as its trials stopped: interrupted, stopped by its budget, or run to the end. */
function sessionEnd(run: SessionRun, { pending, written, stop, guard, stoppedBy }: Stopped, cli: RunCli, engine: SweepEngine): number {
  const { dir, spent: tally } = run.prep;
  const { stderr } = run.host;
  if (stop.reason === "interrupted") {
    stderr.write(`fieldtest: interrupted; every finished trial is saved. Resume with:\n  ${resumeCommand(dir)}\n`);
    return finish(run, "interrupted", EXIT_SIGNALLED[stoppedBy ?? "SIGINT"]);
  }
  // A limit reached by the session's last calls cut nothing short: its work is done. (Its own
  // work list: a --retry-errors session left error records behind it that it had to re-run.)
  if (stop.mode !== "run" && pending.some((t) => !written.has(t.key))) {
    // A higher limit cannot help a cost that is unknown: each resume goes on to the next such call.
    const resume = guard.stoppedByUnknownCost
      ? `Resume with (it stops again at its next call of unknown cost):\n  ${resumeCommand(dir)}`
      : `Resume (raising the limit) with:\n  ${resumeCommand(dir)} --budget-usd X | --max-calls N`;
    stderr.write(`fieldtest: budget reached (${stop.reason}); stopped cleanly, spent ${formatSpend(tally.total())}. ${resume}\n`);
    return finish(run, "budget_stopped", 3);
  }
  return complete(run, cli, engine);
}

/** One head per trial key: the run's earlier records and the ones this session wrote (each written before it is counted). */
function recordedHeads(run: SessionRun): TrialHead[] {
  return [...run.heads.values()].sort(compareTrials);
}

/** Records how the session and the run ended, and returns the command's exit code. */
function finish(run: SessionRun, state: RunState, code: number): number {
  const { prep, session, host } = run;
  const { manifest, spent: tally } = prep;
  manifest.state = state;
  manifest.finished_at = state === "completed" ? host.now().toISOString() : null;
  session.finished_at = host.now().toISOString();
  session.outcome = state;
  session.spend = tally.session(session.id);
  manifest.spend = tally.total();
  manifest.totals = totalsOf(recordedHeads(run));
  saveManifest(prep);
  return code;
}

/** A session that ran its trials to the end: the run completed (or not, with trials missing), its report and summary written. */
function complete(run: SessionRun, cli: RunCli, engine: SweepEngine): number {
  const { prep, host } = run;
  const { dir, manifest } = prep;
  const recorded = recordedHeads(run);
  const missing = pendingTrials(prep.owned, recorded, false).map((t) => t.key);
  if (missing.length > 0) {
    host.stderr.write(`fieldtest: ${missing.length} trials have no record (first: ${missing[0]}); resume with:\n  ${resumeCommand(dir)}\n`);
    return finish(run, "interrupted", 3);
  }
  finish(run, "completed", 0);
  // A shard's numbers mean little alone: the merged run gets the report.
  const report = engine.writeReport && !manifest.plan.shard ? engine.writeReport(dir) : null;
  printCompleted(run, recorded, report);
  // Errors carry no verdict: a run of mostly errors is an outage, whatever its summary says.
  const outage = manifest.totals.errors * 2 > manifest.totals.recorded ? mostlyErrors(readTrialLog(dir, (r) => r).records) : null;
  if (outage) {
    host.stderr.write(`fieldtest: ${outage}; fix the provider, then re-run them with:  ${resumeCommand(dir)} --retry-errors\n`);
    return 3;
  }
  const failed = cli.failOnExpectations ? (report?.expectationFailures ?? []) : [];
  if (failed.length > 0) {
    host.stderr.write(`fieldtest: ${failed.length} item(s) failed their expectation: ${failed.slice(0, 10).join(", ")}${failed.length > 10 ? ", ..." : ""}\n`);
    return 1;
  }
  return 0;
}

/** A completed run's summary on stdout: by category, the headline metrics, the spend and the files written. */
function printCompleted({ prep, host }: SessionRun, recorded: readonly TrialHead[], report: RunReport | null): void {
  const { dir, manifest, spent: tally } = prep;
  const paths = [join(dir, RUN_FILES.manifest), join(dir, RUN_FILES.trials), join(dir, RUN_FILES.spend), ...(report?.paths ?? [])];
  const out = host.stdout;
  out.write(`\n${formatSummary(summarizeByCategory(recorded, prep.items))}\n`);
  if (report?.headline.length) out.write(`\n${report.headline.join("\n")}\n`);
  const spent = tally.total();
  out.write(
    `\nspent ${spent.calls} calls, ${formatSpend(spent)}  config ${manifest.config_hash.slice(0, 12)}  corpus ${manifest.corpus.hash.slice(0, 12)}${loopText(manifest.operational.event_loop ?? null)}${loopText(manifest.operational.http_thread_loop ?? null, "HTTP thread")}\n`,
  );
  if (manifest.plan.shard)
    out.write(`shard ${manifest.plan.shard.index}/${manifest.plan.shard.count}: merge the shards with  npx --no-install fieldtest merge DIR... --out DIR\n`);
  out.write(`wrote:\n${paths.map((p) => `  ${p}`).join("\n")}\n`);
}
