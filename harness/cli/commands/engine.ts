import type { Command } from "commander";
import { z } from "zod";
import { toGoal } from "../../../src/formats/goal.ts";
import { InputError } from "../../../src/formats/load.ts";
import { checkApiKeys, MissingApiKeyError } from "../../../src/providers/api-keys.ts";
import { createModelClient } from "../../../src/providers/client.ts";
import { registerSecret } from "../../../src/secrets.ts";
import { loadSimProfile } from "../../../src/sim/profile.ts";
import { loadCorpus } from "../../corpus/load.ts";
import { createEngineExecutor } from "../../engine/executor.ts";
import { identifyEngine } from "../../engine/identity.ts";
import { ENGINE_WIRES } from "../../engine/manifest.ts";
import { EndpointCliShape, resolveRun, RunCliSchema } from "../../run/settings.ts";
import { EXIT } from "../exit.ts";
import { defaultCorpus, endpointOptions, parseOptions } from "../options.ts";
import { traceSummary } from "../trace.ts";
import type { CommandContext } from "../context.ts";

const CheckOptionsSchema = z.strictObject({
  smoke: z.boolean().optional(),
  goal: z.string().min(1).optional(),
  provider: RunCliSchema.shape.provider,
  model: RunCliSchema.shape.model,
  plannerModel: RunCliSchema.shape.plannerModel,
  criticModel: RunCliSchema.shape.criticModel,
  ...EndpointCliShape,
});

export function register(program: Command, { host, action }: CommandContext): void {
  const engine = program.command("engine").description("External engines: check a manifest (docs/reference/engine-protocol.md)");
  endpointOptions(
    engine
      .command("check")
      .description(
        "Check an engine manifest and ask the engine its version (exit 0, or 2 naming what is wrong); with --smoke also run one corpus goal through it end to end and print the trial (exit 0 with a verdict, 1 when the engine failed, 3 when the provider never answered)",
      )
      .argument("<file>", "the engine manifest (YAML)")
      .option("--smoke", "run one corpus goal through the engine and the recording proxy")
      .option("--goal <id>", "with --smoke: the corpus goal (default: the first in id order)")
      .option("--provider <p>", `with --smoke: the provider of both roles (${ENGINE_WIRES.join(" | ")}: the wire format the engine speaks)`)
      .option("--model <m>", "with --smoke: the model of both roles")
      .option("--planner-model <m>", "with --smoke: the planner's model")
      .option("--critic-model <m>", "with --smoke: the critic's model"),
  ).action(
    action(async (file: string, raw: unknown) => {
      const options = parseOptions(CheckOptionsSchema, raw);
      const { engine: loaded, identity } = identifyEngine(file, host.env);
      const m = loaded.manifest;
      host.stdout.write(
        [
          `${identity.name}: ${m.protocol} protocol, speaks ${m.speaks}, version ${identity.version ?? "(no version command)"}`,
          `  goal: ${m.goal.format} format${m.protocol === "command" ? ` at ${m.goal.path}` : " in the trial's input line"}; result: ${m.result.format} format from ${m.result.from === "file" ? m.result.path : "stdout"}`,
          `  manifest ${identity.manifest_sha256.slice(0, 12)}; trials stopped after ${m.start.timeout_s} s; replay normalisation rules: ${m.replay.normalize.length}`,
        ].join("\n") + "\n",
      );
      if (!options.smoke) return EXIT.ok;

      const { goal: _goal, smoke: _smoke, ...roles } = options;
      const identify = () => ({ ...identity, speaks: m.speaks });
      const { config } = resolveRun({}, { engine: file, ...roles }, { loadProfile: loadSimProfile, identifyEngine: identify });
      try {
        checkApiKeys(config.client, host.env);
      } catch (e) {
        if (e instanceof MissingApiKeyError) throw new InputError("environment", "", e.message);
        throw e;
      }
      const goals = loadCorpus(defaultCorpus())
        .goals.map(({ goal }) => toGoal(goal))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      const goal = options.goal === undefined ? goals[0] : goals.find((g) => g.id === options.goal);
      if (goal === undefined) throw new InputError("command line", "--goal", `no corpus goal ${options.goal}`);
      const client = createModelClient(config.client, { env: host.env });
      const executor = createEngineExecutor({
        engine: loaded,
        goals: new Map([[goal.id, goal]]),
        forwarder: client,
        models: { planner: config.client.planner.model, critic: config.client.critic.model },
        env: host.env,
        onToken: registerSecret,
      });
      try {
        const outcome = await executor({ key: `corpus/${goal.id}/0`, suite: "corpus", item_id: goal.id, trial: 0 });
        host.stdout.write(`\n${traceSummary(goal, outcome)}\n`);
        const kind = outcome.engine!.outcome;
        return kind === "ok" ? EXIT.ok : kind === "provider_error" ? EXIT.infrastructure : EXIT.blocked;
      } finally {
        await executor.close();
      }
    }),
  );
}
