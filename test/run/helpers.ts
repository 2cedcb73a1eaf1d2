import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { execa } from "execa";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { loadCorpus } from "../../harness/corpus/load.ts";
import type { Corpus } from "../../harness/corpus/load.ts";
import type { TrialExecutor } from "../../harness/run/execute.ts";
import { RunCliSchema } from "../../harness/run/settings.ts";
import type { CallHooks, SweepEngine, SweepHost } from "../../harness/run/sweep.ts";
import type { TrialWork } from "../../harness/run/work.ts";
import { realEngine } from "../../harness/assembly.ts";
import { engineOutcome } from "../../src/loop/outcome.ts";
import type { CallRecord, EngineOutcome } from "../../src/formats/records.ts";
import { DEFAULT_SIM_PROFILE } from "../../src/sim/profile.ts";
import { createRng } from "../../src/stats/random.ts";
import { PACKAGE_ROOT } from "../../harness/package.ts";
import { CHILD_NODE_FLAGS } from "../helpers/node-flags.ts";
import { call } from "../metrics/builders.ts";

export const tempDir = (prefix = "ft-run-") => mkdtempSync(join(tmpdir(), prefix));

/** The package's binary, as `npx --no-install fieldtest` runs it. */
export const BIN = join(PACKAGE_ROOT, "bin", "fieldtest.js");

/**
 * `fieldtest run` in a process of its own, through the binary as a user runs it, for tests that
 * kill it or race it: `options` as the command line gives them (`maxCalls: "20"` is
 * `--max-calls 20`, `retryErrors: true` is `--retry-errors`), run in the folder that holds
 * `corpusRoot` (the command reads ./corpus).
 */
export function sweepProcess(options: Record<string, string | true>, corpusRoot: string) {
  const args = Object.entries(options).flatMap(([name, value]) => {
    const flag = `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    return value === true ? [flag] : [flag, value];
  });
  return execa(process.execPath, [...CHILD_NODE_FLAGS, BIN, "run", ...args], { cwd: dirname(corpusRoot), env: { CI: "1" }, reject: false });
}

/** A corpus of its own under `root` (the first `goals` real goals, the first `fixtures` real fixtures), so a child process starts fast. */
export function smallCorpus(root: string, goals: number, fixtures: number): string {
  const corpus = loadCorpus("corpus");
  const dir = join(root, "corpus");
  for (const { file } of [...corpus.goals.slice(0, goals), ...corpus.fixtures.slice(0, fixtures)]) {
    const target = join(dir, relative("corpus", file));
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(file, target);
  }
  return dir;
}

export const cli = (raw: Record<string, unknown>) => RunCliSchema.parse(raw);

/** A write stream that keeps what is written. */
function capture(): NodeJS.WriteStream & { text: string } {
  const s = {
    text: "",
    isTTY: false,
    write(chunk: string) {
      s.text += chunk;
      return true;
    },
  };
  return s as unknown as NodeJS.WriteStream & { text: string };
}

interface TestHost extends SweepHost {
  stdout: NodeJS.WriteStream & { text: string };
  stderr: NodeJS.WriteStream & { text: string };
  /** Delivers a signal to the sweep's handler, as the process would. */
  signal(s: "SIGINT" | "SIGTERM"): void;
}

export function testHost(argv: string[] = ["run"]): TestHost {
  let handler: ((s: "SIGINT" | "SIGTERM") => void) | null = null;
  let n = 0;
  return {
    now: () => new Date(),
    randomId: () => `t${(n++).toString(16)}`,
    argv,
    env: {},
    stdout: capture(),
    stderr: capture(),
    onSignal: (h) => {
      handler = h;
      return () => (handler = null);
    },
    signal: (s) => handler?.(s),
    git: async () => ({ sha: "0".repeat(40), dirty: false }),
    harnessVersion: "test",
  };
}

/** A small corpus object: `goals` engine items and `fixtures` boundary items. */
export function fakeCorpus(goals: number, fixtures: number): Corpus {
  const g = Array.from({ length: goals }, (_, i) => ({
    file: `g${i}.yaml`,
    goal: { id: `goal-${i}`, domain: i % 2 ? "dns" : "database", category: (["balanced", "strict", "adversarial"] as const)[i % 3] },
  }));
  const f = Array.from({ length: fixtures }, (_, i) => ({ file: `f${i}.yaml`, fixture: { id: `fix-${i}`, goal: { domain: "database" } } }));
  const itemHashes = Object.fromEntries([
    ...g.map((x) => [`corpus/${x.goal.id}`, `h-${x.goal.id}`]),
    ...f.map((x) => [`boundary/${x.fixture.id}`, `h-${x.fixture.id}`]),
  ]);
  return {
    root: "fake",
    goals: g,
    fixtures: f,
    hash: `corpus-${goals}-${fixtures}`,
    itemHashes,
    security: [],
    injection: [],
    suiteItemHashes: {},
  } as unknown as Corpus;
}

function fakeCall(role: "planner" | "critic", round: number, costUsd: number): CallRecord {
  return { ...call({ role, cost: costUsd, usage: null }), round };
}

interface FakeOptions {
  /** Calls per engine trial (alternating planner and critic); boundary trials make one critic call. */
  callsPerGoal?: number;
  costPerCall?: number;
  sleep?: (work: TrialWork) => Promise<void>;
  /** Called after each trial's calls, before it returns (to interleave signals). */
  afterTrial?: (work: TrialWork) => void;
  /** Trials whose executor throws before any call (recorded as `error`, as a dead provider leaves them). */
  fails?: (work: TrialWork) => boolean;
}

/**
 * The runner's machinery over a fake executor: each trial makes its calls through the run's
 * hooks (so budgets, counting and the spend journal are real) and returns a seeded verdict.
 */
export function fakeEngine(corpus: Corpus, o: FakeOptions = {}): SweepEngine & { calls: string[] } {
  const calls: string[] = [];
  let sends = 0;
  const real = realEngine({});
  return {
    calls,
    loadCorpus: () => corpus,
    loadProfile: () => DEFAULT_SIM_PROFILE,
    runCanaries: () => ({ ok: true, results: [], failures: [] }),
    describe: (config) => ({ ...real.describe(config), fingerprint: { fake: 1 } }),
    price: (provider) => (provider === "sim" ? (o.costPerCall ?? 0) : null),
    checkApiKeys: () => {},
    createExecutor:
      (config, _corpus, hooks: CallHooks): TrialExecutor =>
      async (work): Promise<EngineOutcome> => {
        if (o.fails?.(work)) throw new Error("provider unreachable");
        const made: CallRecord[] = [];
        const n = work.suite === "corpus" ? (o.callsPerGoal ?? 4) : 1;
        for (let i = 0; i < n; i++) {
          const role = work.suite === "boundary" || i % 2 === 1 ? "critic" : "planner";
          if (hooks.beforeCall(role, work.key) === "budget_exceeded") return engineOutcome([], made, ["budget_exceeded"]);
          const id = sends++;
          const round = Math.floor(i / 2);
          hooks.onAttempt({ phase: "sent", id, role, provider: "sim", model: `sim-${role}`, round, attempt: 0, index: 0 }, work.key);
          await (o.sleep?.(work) ?? Promise.resolve());
          const made1 = fakeCall(role, round, o.costPerCall ?? 0);
          calls.push(work.key);
          hooks.onAttempt(
            { phase: "returned", id, role, outcome: "ok", error_class: null, http_status: null, usage: null, cost_usd: made1.cost_usd },
            work.key,
          );
          made.push(made1);
        }
        o.afterTrial?.(work);
        const approve = createRng(config.seed, work.key)() < 0.7;
        return engineOutcome([], made, approve ? [] : ["revision_cap_reached"], work.suite === "boundary" ? (approve ? "pass" : "block") : null);
      },
  };
}
