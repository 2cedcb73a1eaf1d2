import type { Command } from "commander";
import { z } from "zod";
import { goalSchemaFor, toGoal, type Goal } from "../../../src/formats/goal.ts";
import { InputError, readSource, validate } from "../../../src/formats/load.ts";
import { ENGINE_MODES, DEFAULT_MAX_ROUNDS, roundCap, runEngine } from "../../../src/loop/engine.ts";
import { checkApiKeys, MissingApiKeyError } from "../../../src/providers/api-keys.ts";
import { createModelClient } from "../../../src/providers/client.ts";
import { RoleConfigSchema, type ClientConfig, type RoleConfig } from "../../../src/providers/config.ts";
import { defaultModel, isLiveProvider, WIRE_PROVIDERS } from "../../../src/providers/registry.ts";
import { EndpointCliShape, endpointPatch } from "../../run/settings.ts";
import { loadSimProfile } from "../../../src/sim/profile.ts";
import { EXIT } from "../exit.ts";
import { jsonText } from "../printing.ts";
import { traceSummary } from "../trace.ts";
import type { CommandContext } from "../context.ts";
import { collect, endpointOptions, intOption, numberOption, parseOptions } from "../options.ts";
import { loadPacks } from "../../../src/packs/load.ts";
import { packsBehave } from "../../packs.ts";

const OptionsSchema = z.strictObject({
  goal: z.string().min(1),
  provider: z.enum(WIRE_PROVIDERS).default("sim"),
  model: z.string().min(1).optional(),
  plannerProvider: z.enum(WIRE_PROVIDERS).optional(),
  plannerModel: z.string().min(1).optional(),
  criticProvider: z.enum(WIRE_PROVIDERS).optional(),
  criticModel: z.string().min(1).optional(),
  ...EndpointCliShape,
  temperature: numberOption(z.number().min(0).max(2)).optional(),
  mode: z.enum(ENGINE_MODES).default("gates-first"),
  maxRounds: intOption(1).default(DEFAULT_MAX_ROUNDS),
  seed: intOption().default(0),
  trial: intOption(0).default(0),
  simProfile: z.string().min(1).optional(),
  pack: z.array(z.string().min(1)).default([]),
  json: z.boolean().default(false),
});
type Options = z.output<typeof OptionsSchema>;

function loadGoal(file: string): Goal {
  const source = readSource(file);
  return toGoal(validate(source, goalSchemaFor(source.data)));
}

/** One role's model config: a vendor provider needs a model name; an in-process one (the sim) has its own. */
function roleConfig(options: Options, role: "planner" | "critic"): RoleConfig {
  const provider = (role === "planner" ? options.plannerProvider : options.criticProvider) ?? options.provider;
  const model = (role === "planner" ? options.plannerModel : options.criticModel) ?? options.model ?? defaultModel(provider, role);
  if (model === undefined) throw new InputError("command line", `--${role}-model`, `provider "${provider}" needs a model (--model or --${role}-model)`);
  return RoleConfigSchema.parse({
    provider,
    model,
    ...(isLiveProvider(provider) ? endpointPatch(options) : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  });
}

function clientConfig(options: Options, env: NodeJS.ProcessEnv): ClientConfig {
  const config: ClientConfig = {
    planner: roleConfig(options, "planner"),
    critic: roleConfig(options, "critic"),
    sim: { runSeed: options.seed, ...(options.simProfile ? { profile: loadSimProfile(options.simProfile) } : {}) },
  };
  try {
    checkApiKeys(config, env);
  } catch (e) {
    if (e instanceof MissingApiKeyError) throw new InputError("environment", "", e.message);
    throw e;
  }
  return config;
}

export function register(program: Command, { host, action }: CommandContext): void {
  endpointOptions(
    program
      .command("plan")
      .description("Run the engine on one goal and print its trace: 0 approved, 1 escalated, 2 invalid input, 3 infrastructure error (a provider that never answered)")
      .requiredOption("--goal <file>", "goal file (YAML or JSON; corpus goal files are accepted)")
      .option("--provider <p>", `provider of both roles: ${WIRE_PROVIDERS.join(" | ")}`, "sim")
      .option("--model <m>", "model of both roles (required for a vendor provider)")
      .option("--planner-provider <p>", "provider of the planner")
      .option("--planner-model <m>", "model of the planner")
      .option("--critic-provider <p>", "provider of the critic")
      .option("--critic-model <m>", "model of the critic")
  )
    .option("--temperature <t>", "sampling temperature of both roles")
    .option("--mode <mode>", `when the critic runs: ${ENGINE_MODES.join(" | ")}`, "gates-first")
    .option("--max-rounds <n>", "rounds per goal (a goal's max_revisions overrides it)", String(DEFAULT_MAX_ROUNDS))
    .option("--seed <n>", "run seed of the sim provider", "0")
    .option("--trial <n>", "trial index (the sim draws per trial)", "0")
    .option("--sim-profile <file>", "sim noise profile (YAML)")
    .option("--pack <dir>", "enable a domain pack: its rules gate every round (repeatable)", collect)
    .option("--json", "print the whole outcome: every round, raw and normalized findings, every call with its decision context")
    .action(action(async (raw: unknown) => {
      const options = parseOptions(OptionsSchema, raw);
      const goal = loadGoal(options.goal);
      const packs = loadPacks(options.pack);
      if (!packsBehave(packs, host.stderr, "no LLM call was made")) return EXIT.infrastructure;
      const client = createModelClient(clientConfig(options, host.env), { env: host.env });
      const engineOptions = { mode: options.mode, maxRounds: options.maxRounds, packs };
      const outcome = await runEngine(goal, { client, itemId: goal.id, trial: options.trial }, engineOptions);
      host.stdout.write(options.json ? jsonText({ goal_id: goal.id, mode: options.mode, max_rounds: roundCap(goal, engineOptions), ...outcome }) : `${traceSummary(goal, outcome)}\n`);
      return outcome.status === "approved" ? EXIT.ok : outcome.status === "error" ? EXIT.infrastructure : EXIT.blocked;
    }));
}
