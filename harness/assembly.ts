// The one assembly of fieldtest's engine: roles and their client, prompts,
// gates, packs and loop settings from a resolved RunConfig, for `run`, `plan` and engine runs alike.
import { join } from "node:path";
import { CRITIC_PROMPT, type PromptDescriptor } from "../src/critic/prompts/index.ts";
import { toGoal, type Goal } from "../src/formats/goal.ts";
import type { Fixture } from "../src/formats/fixture.ts";
import { InputError } from "../src/formats/load.ts";
import { GATE_VERSIONS } from "../src/gates/index.ts";
import { runCriticTrial } from "../src/loop/critic-trial.ts";
import { runEngine, type EngineOptions } from "../src/loop/engine.ts";
import { checkApiKeys, liveProvidersOf, MissingApiKeyError } from "../src/providers/api-keys.ts";
import { createModelClient, type ClientDeps } from "../src/providers/client.ts";
import { sharedSendThread, type SendThread } from "../src/providers/send-thread/thread.ts";
import type { RoleConfig } from "../src/providers/config.ts";
import type { ModelClient } from "../src/providers/types.ts";
import { estimateCost, isBilled, PRICE_TABLE_VERSION } from "../src/providers/prices.ts";
import { SIM_VERSION } from "../src/sim/adapter.ts";
import { loadSimProfile } from "../src/sim/profile.ts";
import { loadRunFile } from "../src/formats/load.ts";
import { SummaryFileSchema, type SummaryFile } from "../src/formats/summary.ts";
import { publicBaseUrl } from "../src/providers/endpoint.ts";
import type { MetricValue } from "../src/metrics/types.ts";
import { runCanaries } from "./canary.ts";
import { fmtMetric } from "./report/format.ts";
import { HEADLINE_METRICS } from "../src/metrics/catalogue.ts";
import type { DecisionInput } from "./report/decision.ts";
import { writeReport } from "./report/write.ts";
import { loadCorpus, type Corpus } from "./corpus/load.ts";
import { SECURITY_SUITE_PACKS } from "./corpus/security.ts";
import { canonicalJson, deepFreeze } from "../src/canonical.ts";
import type { CompiledPack } from "../src/packs/compile.ts";
import { loadPacks, packVersions } from "../src/packs/load.ts";
import { declaredAttributes, plannerPromptFor } from "../src/packs/planner.ts";
import type { TrialExecutor } from "./run/execute.ts";
import { readTrialLog, RUN_FILES } from "./run/store.ts";
import type { CallHooks, RunReport, SweepEngine } from "./run/sweep.ts";
import type { RunConfig } from "../src/formats/run-config.ts";
import { createEngineExecutor } from "./engine/executor.ts";
import { registerSecret } from "../src/secrets.ts";
import { identifyEngine, type EngineIdentity } from "./engine/identity.ts";
import { loadEngineManifest } from "./engine/manifest.ts";
import { PACKAGED_CORPUS } from "./package.ts";

function promptHashes(p: PromptDescriptor<string>) {
  return {
    version: p.version,
    system_sha256: p.system_sha256,
    user_template_sha256: Object.fromEntries(Object.entries(p.templates).map(([k, t]) => [k, t.sha256])),
    schema_sha256: p.schema_sha256,
  };
}

function roleSummary(r: RoleConfig, prompt: PromptDescriptor<string> | null) {
  return {
    provider: r.provider,
    model: r.model,
    base_url: r.baseUrl === undefined ? null : publicBaseUrl(r.baseUrl),
    temperature: r.temperature ?? null,
    top_p: r.topP ?? null,
    seed: r.seed ?? null,
    max_tokens: r.maxTokens ?? null,
    // An external engine's prompts are its own: each call records the hashes of what it sent.
    prompt: prompt === null ? null : promptHashes(prompt),
  };
}

/** What a replayed run answers with: its recorded calls, read by the one trial-log reader. */
const replayedTrials = (dir: string) => readTrialLog(dir, (r) => ({ suite: r.suite, item_id: r.item_id, trial: r.trial, calls: r.calls })).records;

/** The model client of a run's roles; a replayed role answers from its run's recorded trials. */
export function runClient(config: RunConfig, env: NodeJS.ProcessEnv, deps: Omit<ClientDeps, "env" | "recordedTrials"> = {}) {
  return createModelClient(config.client, { ...deps, env, recordedTrials: replayedTrials });
}

/** The engine loop's settings of a run: when the critic runs, how many rounds, which packs gate each round. */
export const loopOptions = (config: RunConfig, packs: readonly CompiledPack[]): EngineOptions => ({ mode: config.mode, maxRounds: config.maxRounds, packs });

/** A role whose API key is not set is bad input of the environment (one line, exit 2), before any work. */
export function checkRunKeys(config: RunConfig, env: NodeJS.ProcessEnv): void {
  try {
    checkApiKeys(config.client, env);
  } catch (e) {
    if (e instanceof MissingApiKeyError) throw new InputError("environment", "", e.message);
    throw e;
  }
}

/** The packs a run gates with: its own (`--pack`, `packs:`), and for the security suite also the packs the suite names. */
interface RunPacks {
  run: CompiledPack[];
  security: CompiledPack[];
  /** Every pack loaded, for the canaries and the recorded gate versions. */
  all: CompiledPack[];
}

export function runPacks(config: RunConfig): RunPacks {
  const dirs = config.packs ?? [];
  const run = loadPacks(dirs);
  const security = config.suites.includes("security") ? loadPacks([...dirs, ...SECURITY_SUITE_PACKS]) : run;
  return { run, security, all: security };
}

/**
 * The engine executor: corpus goals through the full loop, boundary fixtures, security variants
 * and injection traps through the critic alone; every plan gated with the run's packs, security
 * variants also with the suite's. `env` holds the API keys: the host's environment, where
 * realEngine checked them.
 */
export function engineExecutor(
  config: RunConfig,
  corpus: Corpus,
  hooks: CallHooks,
  env: NodeJS.ProcessEnv,
  packs: RunPacks = runPacks(config),
  sendThread: SendThread = sharedSendThread(),
): TrialExecutor & { close?(): Promise<void> } {
  const client = runClient(config, env, { ...hooks, sendThread });
  // Each goal's engine view is made once and frozen: every call of every trial of it sends the same canonical text, which canonicalJson then writes once.
  const goals = new Map<string, Goal>(corpus.goals.map(({ goal }) => [goal.id, deepFreeze(toGoal(goal))]));
  if (config.engine) {
    const loaded = loadEngineManifest(config.engine.file);
    // A resume runs the engine the run started with, or none.
    if (loaded.sha256 !== config.engine.manifest_sha256)
      throw new InputError(config.engine.file, "", "changed since the run recorded it (its hash differs): the trials would not be of one engine");
    const models = { planner: config.client.planner.model, critic: config.client.critic.model };
    // The per-trial tokens are credentials too: masked wherever they could be written.
    return createEngineExecutor({ engine: loaded, goals, forwarder: client, models, env, onToken: registerSecret });
  }
  const frozen: Record<"boundary" | "security" | "injection", Map<string, Fixture>> = {
    boundary: new Map(corpus.fixtures.map(({ fixture }) => [fixture.id, fixture])),
    security: new Map(corpus.security.map((s) => [s.id, s.fixture])),
    injection: new Map(corpus.injection.map((i) => [i.id, i.fixture])),
  };
  return (work) => {
    // Every request of the trial carries its key, which the client hands to the hooks with each send.
    const trialClient: ModelClient = { structured: (request, validator, guard) => client.structured({ ...request, trialKey: work.key }, validator, guard) };
    const deps = { client: trialClient, itemId: work.item_id, trial: work.trial };
    if (work.suite === "corpus") return runEngine(goals.get(work.item_id)!, deps, loopOptions(config, packs.run));
    return runCriticTrial(frozen[work.suite].get(work.item_id)!, deps, work.suite === "security" ? packs.security : packs.run);
  };
}

/** An external engine's run: its identity and fieldtest's gates decide its results, not fieldtest's prompts. */
function describeEngineRun(config: RunConfig, identity: EngineIdentity): ReturnType<SweepEngine["describe"]> {
  const engine = { name: identity.name, manifest_sha256: identity.manifest_sha256, version: identity.version };
  return {
    fingerprint: { engine, gate_versions: GATE_VERSIONS, sim_version: null },
    roles: { planner: roleSummary(config.client.planner, null), critic: roleSummary(config.client.critic, null) },
    gateVersions: { ...GATE_VERSIONS },
    priceTableVersion: PRICE_TABLE_VERSION,
  };
}

/** `summary.json` of a run, validated (a bad file is one line naming the file, the line and the key path). */
export function readSummary(dir: string): SummaryFile {
  return loadRunFile(join(dir, RUN_FILES.summary), SummaryFileSchema);
}

/** Writes the run's reports, then reads the headline metrics and failed expectations back from summary.json. */
export function reportRun(dir: string, corpusRoot = PACKAGED_CORPUS, decisionInput: DecisionInput | null = null): RunReport {
  const { paths, decision, warnings } = writeReport(dir, corpusRoot, decisionInput);
  const summary = readSummary(dir);
  // Metrics with no item (a run of the security suite alone has no boundary fixture) are left out.
  const shown = HEADLINE_METRICS.filter((m) => summary.metrics[m] !== undefined && summary.metrics[m]!.n_items > 0);
  const width = Math.max(...shown.map((m) => m.length));
  const headline = shown.map((m) => {
    const v = summary.metrics[m]!;
    return `${m.padEnd(width)}  ${fmtMetric(v as unknown as MetricValue).padEnd(24)} items ${v.n_items}, trials ${v.n_trials}`;
  });
  const failed = [
    ...summary.expectations.goals.failing_items.map((id) => `corpus/${id}`),
    ...summary.expectations.fixtures.failing_items.map((id) => `boundary/${id}`),
  ];
  const warned = warnings.map((w) => `warning: ${w}`);
  return {
    paths,
    headline: [...headline, ...(warned.length ? ["", ...warned] : []), ...(decision ? ["", decision.verdict] : [])],
    expectationFailures: failed,
  };
}

/** The real system behind `fieldtest run` (the corpus root is a parameter for tests). */
export function realEngine(env: NodeJS.ProcessEnv, corpusRoot = PACKAGED_CORPUS, decisionInput: DecisionInput | null = null): SweepEngine {
  // One load per configuration: describe, the canaries and the executor judge with the same packs.
  const loaded = new Map<string, RunPacks>();
  const packsFor = (config: RunConfig) => {
    const key = canonicalJson([config.packs ?? [], config.suites]);
    if (!loaded.has(key)) loaded.set(key, runPacks(config));
    return loaded.get(key)!;
  };
  const sendThread = sharedSendThread();
  // An engine is asked its version once per manifest (a fresh run identifies it, then describes it).
  const engines = new Map<string, ReturnType<NonNullable<SweepEngine["identifyEngine"]>>>();
  const identified = (file: string) => {
    if (!engines.has(file)) {
      const { engine, identity } = identifyEngine(file, env);
      engines.set(file, { ...identity, speaks: engine.manifest.speaks });
    }
    return engines.get(file)!;
  };
  return {
    warmUp: (config, concurrency) => sendThread.warm(liveProvidersOf(config.client), concurrency),
    watchSendLoop: (config) => (liveProvidersOf(config.client).length > 0 ? sendThread.watchLoop() : null),
    loadCorpus: () => loadCorpus(corpusRoot),
    loadProfile: loadSimProfile,
    runCanaries: (config) => runCanaries({ packs: packsFor(config).all }),
    identifyEngine: identified,
    describe: (config) => {
      // The engine as it is now: a resume whose manifest or engine version changed is refused by the config hash.
      if (config.engine) return describeEngineRun(config, identified(config.engine.file));
      const usesSim = [config.client.planner, config.client.critic].some((r) => r.provider === "sim" || r.replay?.as === "sim");
      // Pack versions sit beside the gate versions (and so in the config hash) only when a pack is loaded.
      const packs = packsFor(config);
      const gateVersions = { ...GATE_VERSIONS, ...packVersions(packs.all) };
      // Packs that declare attributes extend the planner's prompt and schema: record what is sent.
      const planner = plannerPromptFor(declaredAttributes(packs.run));
      return {
        fingerprint: {
          prompts: { planner: promptHashes(planner), critic: promptHashes(CRITIC_PROMPT) },
          gate_versions: gateVersions,
          sim_version: usesSim ? SIM_VERSION : null,
        },
        roles: { planner: roleSummary(config.client.planner, planner), critic: roleSummary(config.client.critic, CRITIC_PROMPT) },
        gateVersions,
        priceTableVersion: PRICE_TABLE_VERSION,
      };
    },
    price: (provider, model, inTok, outTok) => (isBilled(provider) ? estimateCost(model, inTok, outTok) : 0),
    checkApiKeys: (config) => checkRunKeys(config, env),
    createExecutor: (config, corpus, hooks) => engineExecutor(config, corpus, hooks, env, packsFor(config), sendThread),
    writeReport: (dir) => reportRun(dir, corpusRoot, decisionInput),
  };
}
