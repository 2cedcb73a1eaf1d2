import { join } from "node:path";
import { z } from "zod";
import { hashCanonical, canonicalJson } from "../../src/canonical.ts";
import { CATEGORIES } from "../../src/formats/enums.ts";
import { InputError } from "../../src/formats/load.ts";
import { ROLES, type Role } from "../../src/formats/records.ts";
import { ClientConfigSchema, HeaderTextSchema, ROLE_PROVIDERS, type RoleConfig } from "../../src/providers/config.ts";
import { hasCredentials, withoutCredentials } from "../../src/providers/endpoint.ts";
import { ENGINE_MODES } from "../../src/loop/engine.ts";
import { DEFAULT_SIM_PROFILE, type SimProfile } from "../../src/sim/profile.ts";
import { EstimateSchema, MAX_CONCURRENCY, MAX_TRIALS, wholeNumber, type ConfigFile, type Estimate, type RolePatch } from "../config.ts";
import { REDACTED, redactHeaders, splitHeader } from "./redact.ts";
import { RUN_FILES } from "./store.ts";
import { DEFAULT_SUITES, parseShard, type Shard } from "./work.ts";
import { numberOption, wholeText } from "../cli/options.ts";
import type { EngineIdentity } from "../engine/identity.ts";
import {
  defaultModel,
  isLiveProvider,
  isWireProvider,
  LIVE_PROVIDERS,
  providerDefinition,
  WIRE_PROVIDERS,
  type LiveProvider,
} from "../../src/providers/registry.ts";
import { HttpUrlSchema, MAX_TIMEOUT_MS } from "../../src/providers/role-settings.ts";
import { IMPORTED_SUITE, RUN_SUITES, type RecordedConfig, type RunConfig } from "../../src/formats/run-config.ts";

/** A recorded config a sweep can run again (resume): any but an imported run's. */
function runnableConfig(config: RecordedConfig, manifestFile: string = RUN_FILES.manifest): RunConfig {
  const { suites } = config;
  if (isImported(suites)) {
    throw new InputError(manifestFile, "config.suites", "an imported run records trials fieldtest did not run; it cannot be resumed");
  }
  return { ...config, suites };
}

const isImported = (suites: RecordedConfig["suites"]): suites is [typeof IMPORTED_SUITE] => suites[0] === IMPORTED_SUITE;

/** Everything that cannot change a result: never hashed, free to differ between resume and shards. */
interface Operational {
  concurrency: number;
  budgetUsd: number | null;
  maxCalls: number | null;
  shard: Shard | null;
}

/** Code-derived inputs of a result (prompts, schemas, gates, sim profile): hashed beside the config. */
export type Fingerprint = Record<string, unknown>;

const DEFAULT_ROLES: Record<"planner" | "critic", RoleConfig> = {
  planner: { provider: "sim", model: providerDefinition("sim").defaultModels.planner },
  critic: { provider: "sim", model: providerDefinition("sim").defaultModels.critic },
};

const DEFAULTS = {
  suites: [...DEFAULT_SUITES],
  trials: 5,
  seed: 0,
  mode: "gates-first",
  maxRounds: 4,
  concurrency: 8,
} as const;

/** The endpoint options of every command that calls a vendor (run, plan), typed. */
const EndpointOptionsShape = {
  baseUrl: HttpUrlSchema.optional(),
  header: z.array(HeaderTextSchema).optional(),
  /** Per-request timeout, in seconds. */
  timeout: z
    .number()
    .positive()
    .max(MAX_TIMEOUT_MS / 1000)
    .optional(),
};

const ShardSchema = z.strictObject({ index: wholeNumber(1), count: wholeNumber(1) }).refine((s) => s.index <= s.count, "expected I/N with 1 <= I <= N");

/**
 * A sweep's options, typed: what the API's runSweep takes and what `fieldtest run`'s flags become
 * (the same names, camelCased; RunCliSchema reads the flags' text into them).
 */
export const SweepOptionsSchema = z.strictObject({
  config: z.string().optional(),
  suite: z
    .array(z.enum(["canary", ...RUN_SUITES]))
    .min(1)
    .optional(),
  only: z.array(z.string()).min(1).optional(),
  domain: z.array(z.string()).min(1).optional(),
  category: z.array(z.enum(CATEGORIES)).min(1).optional(),
  trials: wholeNumber(1, MAX_TRIALS).optional(),
  seed: wholeNumber().optional(),
  provider: z.enum(ROLE_PROVIDERS).optional(),
  model: z.string().min(1).optional(),
  plannerProvider: z.enum(ROLE_PROVIDERS).optional(),
  plannerModel: z.string().min(1).optional(),
  criticProvider: z.enum(ROLE_PROVIDERS).optional(),
  criticModel: z.string().min(1).optional(),
  ...EndpointOptionsShape,
  temperature: z.number().min(0).max(2).optional(),
  mode: z.enum(ENGINE_MODES).optional(),
  simProfile: z.string().min(1).optional(),
  concurrency: wholeNumber(1, MAX_CONCURRENCY).optional(),
  budgetUsd: z.number().positive().optional(),
  maxCalls: wholeNumber(1).optional(),
  dryRun: z.boolean().optional(),
  shard: ShardSchema.optional(),
  out: z.string().min(1).optional(),
  force: z.boolean().optional(),
  breakLock: z.boolean().optional(),
  failOnExpectations: z.boolean().optional(),
  resume: z.string().min(1).optional(),
  retryErrors: z.boolean().optional(),
  replay: z.string().min(1).optional(),
  replayFallThrough: z.boolean().optional(),
  /** Report options, not run settings: the reports lead with the release gate's decision against this baseline. */
  baseline: z.string().min(1).optional(),
  policy: z.string().min(1).optional(),
  pack: z.array(z.string().min(1)).optional(),
  engine: z.string().min(1).optional(),
});

const list = <S extends z.ZodType>(schema: S) =>
  z.preprocess(
    (raw) =>
      typeof raw === "string"
        ? raw
            .split(",")
            .map((x) => x.trim())
            .filter((x) => x !== "")
        : raw,
    schema,
  );
const shape = SweepOptionsSchema.shape;

/** The endpoint options as commander hands them over (text), read into their typed form. */
export const EndpointCliShape = { ...EndpointOptionsShape, timeout: numberOption(EndpointOptionsShape.timeout) };

/** `fieldtest run` options as commander hands them over (text), read into SweepOptionsSchema's types at the boundary. */
export const RunCliSchema = SweepOptionsSchema.extend({
  suite: list(shape.suite),
  only: list(shape.only),
  domain: list(shape.domain),
  category: list(shape.category),
  trials: wholeText(shape.trials),
  seed: wholeText(shape.seed),
  ...EndpointCliShape,
  temperature: numberOption(shape.temperature),
  concurrency: wholeText(shape.concurrency),
  budgetUsd: numberOption(shape.budgetUsd),
  maxCalls: wholeText(shape.maxCalls),
  shard: z.preprocess(
    (raw, ctx) => (typeof raw === "string" ? (parseShard(raw) ?? (ctx.addIssue({ code: "custom", message: "expected I/N with 1 <= I <= N" }), z.NEVER)) : raw),
    shape.shard,
  ),
});
export type RunCli = z.output<typeof SweepOptionsSchema>;

/** Options that only make sense for a fresh run (the recorded values stand on resume). */
export const FRESH_ONLY: readonly (keyof RunCli)[] = ["shard", "out", "force", "replay", "replayFallThrough", "pack", "engine"];

/** Options that choose a role's provider or model: `--replay` takes both from the recorded run. */
const ROLE_CHOICE: readonly (keyof RunCli)[] = ["provider", "model", "plannerProvider", "plannerModel", "criticProvider", "criticModel", "baseUrl"];

/** What `--replay DIR` takes from DIR's manifest.json (read and validated whole by the caller's reader): the run id, its config hash and each role's provider and model. */
interface ReplaySource {
  run_id: string;
  config_hash: string;
  roles: Record<"planner" | "critic", { provider: string; model: string; base_url: string | null }>;
  config: { client: Record<"planner" | "critic", { replay?: { as: string } }> };
}

interface ReplayPlan {
  replayOf: NonNullable<RunConfig["replayOf"]>;
  roles: Record<"planner" | "critic", RoleConfig>;
}

/**
 * `--replay DIR` (or the file's `replay:`): each role answers from DIR's recorded calls, rendered as
 * the provider DIR used (a replayed run's own source provider when DIR is itself a replay).
 */
function replayPlan(runDir: string, fallThrough: boolean, readSource: ResolveContext["readReplaySource"]): ReplayPlan {
  const manifestFile = join(runDir, RUN_FILES.manifest);
  if (readSource === undefined) throw new Error("a replay needs ResolveContext.readReplaySource");
  const source = readSource(runDir);
  const role = (name: "planner" | "critic"): RoleConfig => {
    const { provider, model, base_url } = source.roles[name];
    const as = provider === "replay" ? source.config.client[name].replay?.as : provider;
    if (as === undefined || !isWireProvider(as)) {
      throw new InputError(manifestFile, `roles.${name}.provider`, `"${as ?? provider}" cannot be replayed (expected ${WIRE_PROVIDERS.join(" | ")})`);
    }
    // The recorded endpoint too: a request's key covers it, and a fall-through goes there.
    return { provider: "replay", model, ...(base_url === null ? {} : { baseUrl: base_url }), replay: { runDir, as, fallThrough } };
  };
  return { replayOf: { runDir, runId: source.run_id, configHash: source.config_hash }, roles: { planner: role("planner"), critic: role("critic") } };
}

export interface ResolvedRun {
  config: RunConfig;
  operational: Operational;
  estimate: Estimate;
}

type EndpointCli = z.output<z.ZodObject<typeof EndpointCliShape>>;

/** A role's endpoint from those options: base URL, extra headers (`K=V`), timeout in ms. */
function endpointPatch(cli: EndpointCli): Pick<RolePatch, "baseUrl" | "headers" | "timeoutMs"> {
  const patch: Pick<RolePatch, "baseUrl" | "headers" | "timeoutMs"> = {};
  if (cli.baseUrl !== undefined) patch.baseUrl = cli.baseUrl;
  if (cli.timeout !== undefined) patch.timeoutMs = Math.round(cli.timeout * 1000);
  if (cli.header !== undefined) {
    const headers: Record<string, string> = {};
    for (const h of cli.header) {
      const kv = splitHeader(h);
      if (kv === null) throw new InputError("command line", "--header", `expected K=V, got "${h.split(/[=:]/)[0]}..."`);
      headers[kv[0]] = kv[1];
    }
    patch.headers = headers;
  }
  return patch;
}

function cliRolePatch(cli: RunCli, role: "planner" | "critic"): RolePatch {
  const patch: RolePatch = endpointPatch(cli);
  const provider = role === "planner" ? cli.plannerProvider : cli.criticProvider;
  const model = role === "planner" ? cli.plannerModel : cli.criticModel;
  if (cli.provider !== undefined || provider !== undefined) patch.provider = (provider ?? cli.provider) as RolePatch["provider"];
  if (cli.model !== undefined || model !== undefined) patch.model = model ?? cli.model;
  if (cli.temperature !== undefined) patch.temperature = cli.temperature;
  return patch;
}

/** A role after the patches: changing the provider without naming a model is an error. */
function applyRole(base: RoleConfig, patches: RolePatch[], role: Role): RoleConfig {
  let out: RoleConfig = { ...base };
  for (const p of patches) {
    const providerChanged = p.provider !== undefined && p.provider !== out.provider;
    out = { ...out, ...p, headers: p.headers ? { ...out.headers, ...p.headers } : out.headers } as RoleConfig;
    if (providerChanged && p.model === undefined && defaultModel(out.provider, role) === undefined) {
      throw new InputError("command line", `--${role}-model`, `provider "${out.provider}" needs a model (--model or --${role}-model)`);
    }
  }
  return out;
}

interface ResolveContext {
  /** On resume: the recorded run, which takes the place of the built-in defaults (an imported run is refused). */
  recorded?: { config: RecordedConfig; operational: Operational };
  /** Reads a sim profile file (the edge passes loadSimProfile). */
  loadProfile: (path: string) => SimProfile;
  /** Reads the manifest of the run `--replay DIR` names (the run folder's one manifest reader); needed only with a replay. */
  readReplaySource?: (runDir: string) => ReplaySource;
  /** Loads an engine manifest and asks the engine its version; needed only with `--engine`. */
  identifyEngine?: (file: string) => EngineIdentity & { speaks: LiveProvider };
}

/** Role settings an external engine decides for itself: it sends its own sampling (each call records what was sent). */
const ENGINE_OWNED: readonly (keyof RoleConfig)[] = ["temperature", "topP", "seed", "maxTokens"];

/**
 * What an engine run may be: corpus goals only (an external engine has no critic-only entry point),
 * every role served in the wire format the engine speaks by a model endpoint (the sim cannot read
 * another engine's prompts), and no sampling set by fieldtest.
 */
function checkEngineRun(engine: EngineIdentity & { speaks: LiveProvider }, roles: readonly RoleConfig[], suites: readonly string[], fromFlags: boolean): void {
  const other = suites.find((s) => s !== "corpus" && s !== "canary");
  if (other !== undefined && fromFlags)
    throw new InputError(
      "command line",
      "--suite",
      `an external engine runs corpus goals only (${other} trials review frozen plans with fieldtest's own critic)`,
    );
  roles.forEach((r, i) => {
    const role = i === 0 ? "planner" : "critic";
    const wire = r.provider === "replay" ? r.replay?.as : r.provider;
    if (wire !== engine.speaks) {
      throw new InputError(
        "command line",
        `${role} provider`,
        `${engine.name} speaks ${engine.speaks}: serve its ${role} with --provider ${engine.speaks} (and --model, --base-url), not ${wire}`,
      );
    }
    const owned = ENGINE_OWNED.find((k) => r[k] !== undefined);
    if (owned !== undefined)
      throw new InputError(
        "command line",
        `${role}.${owned}`,
        `${engine.name} sends its own sampling parameters (each call records what it sent): leave ${owned} unset`,
      );
  });
}

/**
 * Built-in defaults (or, on resume, the recorded config), then the config file, then CLI flags.
 * Pure apart from the injected profile loader and, with a replay, the injected reader of the
 * replayed run's manifest.json. When a role uses the sim, the effective profile is recorded in full, so the
 * config hash moves with it and a resume needs no file.
 */
export function resolveRun(file: ConfigFile, cli: RunCli, ctx: ResolveContext): ResolvedRun {
  const recorded = ctx.recorded;
  const base = recorded ? runnableConfig(recorded.config, join(cli.resume ?? "", RUN_FILES.manifest)) : undefined;
  const suites = cli.suite?.filter((s): s is (typeof RUN_SUITES)[number] => s !== "canary") ?? file.suites ?? base?.suites ?? [...DEFAULTS.suites];
  if (suites.length === 0) throw new InputError("command line", "--suite", "select corpus, boundary, security or injection (canary always runs first)");
  const seed = cli.seed ?? file.seed ?? base?.seed ?? DEFAULTS.seed;
  const replayDir = cli.replay ?? file.replay?.runDir;
  if (cli.replayFallThrough && replayDir === undefined) throw new InputError("command line", "--replay-fall-through", "needs --replay DIR");
  if (cli.replay !== undefined) {
    const clash = ROLE_CHOICE.find((k) => cli[k] !== undefined);
    if (clash)
      throw new InputError(
        "command line",
        `--${clash.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
        "cannot be combined with --replay (each role's provider and model come from the replayed run)",
      );
  }
  const replay = replayDir === undefined ? undefined : replayPlan(replayDir, cli.replayFallThrough ?? file.replay?.fallThrough ?? false, ctx.readReplaySource);
  const roles = (["planner", "critic"] as const).map((role) => {
    const applied = applyRole(base?.client[role] ?? DEFAULT_ROLES[role], [file.provider ?? {}, file.roles?.[role] ?? {}, cliRolePatch(cli, role)], role);
    return replay ? { ...applied, ...replay.roles[role] } : applied;
  }) as [RoleConfig, RoleConfig];
  if (cli.baseUrl !== undefined && roles.every((r) => isWireProvider(r.provider) && !isLiveProvider(r.provider))) {
    const inProcess = [...new Set(roles.map((r) => r.provider))].join(" and ");
    throw new InputError(
      "command line",
      "--base-url",
      `no role talks to an endpoint (both are ${inProcess}): choose one with --provider ${LIVE_PROVIDERS.join("|")}`,
    );
  }
  const bareReplay = roles.findIndex((r) => r.provider === "replay" && r.replay === undefined);
  if (bareReplay >= 0)
    throw new InputError(
      "command line",
      `${bareReplay === 0 ? "planner" : "critic"} provider`,
      "replay a run with --replay DIR (or the config file's replay: {runDir}), not as a provider name",
    );
  const engineFile = cli.engine ?? file.engine;
  const engine = engineFile === undefined ? undefined : ctx.identifyEngine?.(engineFile);
  if (engineFile !== undefined && engine === undefined) throw new Error("an engine run needs ResolveContext.identifyEngine");
  if (engine) checkEngineRun(engine, roles, cli.suite ?? file.suites ?? [], cli.suite !== undefined);
  const profilePath = cli.simProfile ?? file.simProfile ?? undefined;
  const usesSim = roles.some((r) => r.provider === "sim" || (r.provider === "replay" && r.replay?.as === "sim"));
  // `simProfile: null` in a config file asks for the default profile, also on resume (where it is a change to refuse).
  const recordedProfile = cli.simProfile === undefined && file.simProfile === null ? undefined : base?.client.sim?.profile;
  const simProfile = profilePath !== undefined ? ctx.loadProfile(profilePath) : (recordedProfile ?? (usesSim ? DEFAULT_SIM_PROFILE : undefined));
  const clientParsed = ClientConfigSchema.safeParse({
    planner: roles[0],
    critic: roles[1],
    maxOutputAttempts: file.maxOutputAttempts ?? base?.client.maxOutputAttempts,
    maxRetries: file.maxRetries ?? base?.client.maxRetries,
    sim: { ...(simProfile !== undefined ? { profile: simProfile } : {}), runSeed: seed },
  });
  if (!clientParsed.success) {
    const issue = clientParsed.error.issues[0]!;
    throw new InputError("command line", issue.path.join("."), issue.message);
  }
  const config: RunConfig = {
    // An engine runs corpus goals only: a default or a config file's list of suites narrows to them.
    suites: engine || base?.engine ? ["corpus"] : RUN_SUITES.filter((s) => suites.includes(s)),
    only: cli.only ?? (file.only === undefined ? (base?.only ?? null) : file.only),
    domain: cli.domain ?? (file.domain === undefined ? (base?.domain ?? null) : file.domain),
    category: cli.category ?? (file.category === undefined ? (base?.category ?? null) : file.category),
    trials: cli.trials ?? file.trials ?? base?.trials ?? DEFAULTS.trials,
    seed,
    mode: cli.mode ?? file.mode ?? base?.mode ?? DEFAULTS.mode,
    maxRounds: file.maxRounds ?? base?.maxRounds ?? DEFAULTS.maxRounds,
    client: clientParsed.data,
    ...(replay ? { replayOf: replay.replayOf } : base?.replayOf ? { replayOf: base.replayOf } : {}),
    ...packsOf(cli.pack ?? file.packs ?? base?.packs),
    ...(engine
      ? { engine: { file: engine.file, name: engine.name, manifest_sha256: engine.manifest_sha256, version: engine.version } }
      : base?.engine
        ? { engine: base.engine }
        : {}),
  };
  const operational: Operational = {
    concurrency: cli.concurrency ?? file.concurrency ?? recorded?.operational.concurrency ?? DEFAULTS.concurrency,
    budgetUsd: cli.budgetUsd ?? (file.budgetUsd === undefined ? (recorded?.operational.budgetUsd ?? null) : file.budgetUsd),
    maxCalls: cli.maxCalls ?? (file.maxCalls === undefined ? (recorded?.operational.maxCalls ?? null) : file.maxCalls),
    shard: recorded ? recorded.operational.shard : (cli.shard ?? null),
  };
  return { config, operational, estimate: file.estimate ?? EstimateSchema.parse({}) };
}

/** The `packs` key of a config: absent when no pack is enabled, so a config without packs hashes as it always did. */
const packsOf = (dirs: readonly string[] | undefined): { packs?: string[] } => (dirs && dirs.length > 0 ? { packs: [...dirs] } : {});

/** The config as the manifest records it: credential header values replaced, base URLs without userinfo or query. */
export function recordedConfig<C extends Pick<RunConfig, "client">>(config: C): C {
  const role = (r: RoleConfig): RoleConfig => ({
    ...r,
    ...(r.headers ? { headers: redactHeaders(r.headers) } : {}),
    ...(r.baseUrl ? { baseUrl: withoutCredentials(r.baseUrl) } : {}),
  });
  return { ...config, client: { ...config.client, planner: role(config.client.planner), critic: role(config.client.critic) } };
}

const withheldUrl = (role: string) => `${role}.baseUrl`;

/** What the recorded config leaves out and a resume must be given again: `planner.baseUrl` when its URL had userinfo or a query. */
export function withheldCredentials(config: RunConfig): string[] {
  return ROLES.filter((role) => config.client[role].baseUrl !== undefined && hasCredentials(config.client[role].baseUrl!)).map(withheldUrl);
}

/** Credentials the run used that were never recorded and that the resume command line did not supply again. */
export function missingCredentials(config: RunConfig, withheld: readonly string[]): string[] {
  const out: string[] = [];
  for (const role of ROLES) {
    for (const [k, v] of Object.entries(config.client[role].headers ?? {})) if (v === REDACTED) out.push(`${role}: --header ${k}=...`);
    const url = config.client[role].baseUrl;
    if (withheld.includes(withheldUrl(role)) && (url === undefined || !hasCredentials(url))) out.push(`${role}: --base-url (its userinfo and query)`);
  }
  return out;
}

/** Hash of what can change a result: the recorded config plus the code fingerprint. */
export function configHash(config: RunConfig, fingerprint: Fingerprint): string {
  // Where a pack or an engine manifest lives cannot change a result; its name, version and content hash can.
  const { packs: _where, engine, ...rest } = recordedConfig(config);
  if (engine === undefined) return hashCanonical({ config: rest, fingerprint });
  const { file: _file, ...identity } = engine;
  return hashCanonical({ config: { ...rest, engine: identity }, fingerprint });
}

/** `path: before -> after` for every leaf that differs, in path order. */
export function diffValues(before: unknown, after: unknown, path = ""): string[] {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObj(before) && isObj(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => diffValues(before[k], after[k], path ? `${path}.${k}` : k));
  }
  const a = canonicalJson(before ?? null);
  const b = canonicalJson(after ?? null);
  return a === b ? [] : [`${path || "(root)"}: ${a} -> ${b}`];
}
