import type { Command } from "commander";
import { z } from "zod";
import { goalSchemaFor, toGoal, type Goal } from "../../../src/formats/goal.ts";
import { InputError, readSource, validate } from "../../../src/formats/load.ts";
import { ENGINE_MODES, DEFAULT_MAX_ROUNDS, roundCap, runEngine } from "../../../src/loop/engine.ts";
import { WIRE_PROVIDERS } from "../../../src/providers/registry.ts";
import { loadSimProfile } from "../../../src/sim/profile.ts";
import { checkRunKeys, loopOptions, runClient, runPacks } from "../../assembly.ts";
import { loadConfigFile } from "../../config.ts";
import { readManifest } from "../../run/manifest.ts";
import type { RunConfig } from "../../../src/formats/run-config.ts";
import { resolveRun, RunCliSchema } from "../../run/settings.ts";
import { EXIT } from "../exit.ts";
import { jsonText } from "../printing.ts";
import { traceSummary } from "../trace.ts";
import type { CommandContext } from "../context.ts";
import { collect, endpointOptions, givenOptions, intOption, parseOptions } from "../options.ts";
import { packsBehave } from "../../packs.ts";

/** `run`'s settings that one goal's engine takes (the same schema, so the same checks), and what only `plan` has. */
const OptionsSchema = RunCliSchema.pick({
  config: true,
  model: true,
  plannerModel: true,
  criticModel: true,
  baseUrl: true,
  header: true,
  timeout: true,
  temperature: true,
  mode: true,
  seed: true,
  simProfile: true,
  pack: true,
}).extend({
  goal: z.string().min(1),
  // A replay answers a recorded run's trials; one goal is none of them.
  provider: z.enum(WIRE_PROVIDERS).optional(),
  plannerProvider: z.enum(WIRE_PROVIDERS).optional(),
  criticProvider: z.enum(WIRE_PROVIDERS).optional(),
  maxRounds: intOption(1).optional(),
  trial: intOption(0).default(0),
  json: z.boolean().default(false),
});
type Options = z.output<typeof OptionsSchema>;

function loadGoal(file: string): Goal {
  const source = readSource(file);
  return toGoal(validate(source, goalSchemaFor(source.data)));
}

/**
 * The run settings of one goal's engine, resolved as `run` resolves them: built-in defaults, then
 * the `--config` file (only when named), then the flags; `--max-rounds` sets the file's maxRounds.
 */
function planConfig({ goal: _goal, maxRounds, trial: _trial, json: _json, ...cli }: Options): RunConfig {
  const file = cli.config === undefined ? {} : loadConfigFile(cli.config);
  if (file.engine !== undefined)
    throw new InputError(cli.config!, "engine", "plan runs fieldtest's own engine; field-test an external engine with `run --engine`");
  const { config } = resolveRun(file, cli, { loadProfile: loadSimProfile, readReplaySource: readManifest });
  return maxRounds === undefined ? config : { ...config, maxRounds };
}

export function register(program: Command, { host, action }: CommandContext): void {
  endpointOptions(
    program
      .command("plan")
      .description(
        "Run the engine on one goal and print its trace: 0 approved, 1 escalated, 2 invalid input, 3 infrastructure error (a provider that never answered)",
      )
      .requiredOption("--goal <file>", "goal file (YAML or JSON; corpus goal files are accepted)")
      .option(
        "--config <file>",
        "run settings from this config file (as `run --config` reads it: roles with their topP, seed, maxTokens, timeouts, retries, the sim profile, packs, mode, maxRounds); flags override it",
      )
      .option("--provider <p>", `provider of both roles: ${WIRE_PROVIDERS.join(" | ")}`, "sim")
      .option("--model <m>", "model of both roles (required for a vendor provider)")
      .option("--planner-provider <p>", "provider of the planner")
      .option("--planner-model <m>", "model of the planner")
      .option("--critic-provider <p>", "provider of the critic")
      .option("--critic-model <m>", "model of the critic"),
  )
    .option("--temperature <t>", "sampling temperature of both roles")
    .option("--mode <mode>", `when the critic runs: ${ENGINE_MODES.join(" | ")}`, "gates-first")
    .option("--max-rounds <n>", "rounds per goal (a goal's max_revisions overrides it)", String(DEFAULT_MAX_ROUNDS))
    .option("--seed <n>", "run seed of the sim provider", "0")
    .option("--trial <n>", "trial index (the sim draws per trial)", "0")
    .option("--sim-profile <file>", "sim noise profile (YAML)")
    .option("--pack <dir>", "enable a domain pack: its rules gate every round (repeatable)", collect)
    .option("--json", "print the whole outcome: every round, raw and normalized findings, every call with its decision context")
    .action(
      action(async (_raw: unknown, command: Command) => {
        // Only the flags given override the config file: the defaults shown are resolveRun's own.
        const options = parseOptions(OptionsSchema, givenOptions(command));
        const goal = loadGoal(options.goal);
        const config = planConfig(options);
        const packs = runPacks(config).run;
        if (!packsBehave(packs, host.stderr, "no LLM call was made")) return EXIT.infrastructure;
        checkRunKeys(config, host.env);
        const engineOptions = loopOptions(config, packs);
        const outcome = await runEngine(goal, { client: runClient(config, host.env), itemId: goal.id, trial: options.trial }, engineOptions);
        host.stdout.write(
          options.json
            ? jsonText({ goal_id: goal.id, mode: config.mode, max_rounds: roundCap(goal, engineOptions), ...outcome })
            : `${traceSummary(goal, outcome)}\n`,
        );
        return outcome.status === "approved" ? EXIT.ok : outcome.status === "error" ? EXIT.infrastructure : EXIT.blocked;
      }),
    );
}
