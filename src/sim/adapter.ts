import { canonicalJson, hashCanonical } from "../canonical.ts";
import { runGates } from "../gates/index.ts";
import { createRng, chance, type Rng } from "../stats/random.ts";
import {
  sentSampling,
  TransportError,
  type AdapterParts,
  type Conversation,
  type InProcessAdapterFactory,
  type Reply,
  type SendOptions,
  type WireFacts,
} from "../providers/adapter.ts";
import type { RoleSettings } from "../providers/role-settings.ts";
import { simCriticOutput, type GateRunner } from "./critic.ts";
import { isSimExtra } from "./extra.ts";
import { simPlannerOutput } from "./planner.ts";
import { DEFAULT_SIM_PROFILE, SimSettingsSchema, type Latency, type SimProfile } from "./profile.ts";

/** Bumped whenever the sim's behaviour for a given profile and seed changes (recorded as sdk_version). */
export const SIM_VERSION = "3";

interface SimEnv {
  profile: SimProfile;
  runSeed: number;
  sleep: (ms: number) => Promise<void>;
  /** Injectable for tests of the perception layer; the real gates by default. */
  gates?: GateRunner;
}

function latencyOf(latency: Latency, rng: Rng): number {
  return typeof latency === "number" ? latency : latency.min + (latency.max - latency.min) * rng();
}

/** Two ways a model fails structured output: prose with cut-off JSON, or JSON of the wrong shape. */
function invalidOutput(rng: Rng): string {
  return chance(rng, 0.5) ? 'Here is my answer:\n{"findings": [' : JSON.stringify({ answer: "looks fine to me" });
}

/**
 * The simulated provider. It reads the request's extra (SimExtra), never the prose; its answer
 * is the JSON text a real model would return, so the same parsing and validation path runs.
 * Draws are seeded from (run seed, item, trial, round, role): the content stream is shared by the
 * attempts of one call (a retry after invalid output does not redraw the plan or the audit), the
 * output-validity and latency stream adds the attempt index.
 */
export function createSimAdapter(role: RoleSettings, env: SimEnv): AdapterParts {
  const gates = env.gates ?? runGates;
  return {
    sdkVersion: SIM_VERSION,
    baseUrl: null,
    formats: ["json_schema"],
    answerContext: canonicalJson({ profile_sha256: hashCanonical(env.profile), run_seed: env.runSeed, sim_version: SIM_VERSION }),

    render(c: Conversation) {
      return {
        model: role.model,
        system: c.system,
        messages: [
          { role: "user", content: c.user },
          ...c.corrections.flatMap((fix) => [
            { role: "assistant", content: fix.rawText },
            { role: "user", content: fix.feedback },
          ]),
        ],
        schema: c.schema,
        temperature: role.temperature,
        top_p: role.topP,
        seed: role.seed,
        max_tokens: role.maxTokens,
      };
    },

    describe(body): WireFacts {
      const messages = body.messages as { role: string; content: string }[];
      return {
        model: body.model as string,
        ...sentSampling(body),
        response_format: "json_schema",
        systemText: body.system as string,
        userPrompt: messages.find((m) => m.role === "user")?.content ?? "",
        schema: body.schema ?? null,
      };
    },

    async send(_bodyJson, { request, attempt }: SendOptions): Promise<Reply> {
      const extra = request?.extra;
      if (!request || !isSimExtra(extra))
        throw new TransportError(
          "bad_request",
          "the sim provider needs the engine's request with its extra (the goal, plan, findings, fixture and mode it reads)",
        );
      const coordinates = [env.runSeed, request.itemId, request.trial, request.round, request.role] as const;
      const attemptRng = createRng(...coordinates, "attempt", attempt);
      const profile = request.role === "planner" ? env.profile.planner : env.profile.critic;
      await env.sleep(latencyOf(profile.latency_ms, attemptRng));
      const invalid = chance(attemptRng, profile.invalid_output_rate);
      const contentRng = createRng(...coordinates, "content");
      const text = invalid
        ? invalidOutput(attemptRng)
        : JSON.stringify(
            request.role === "planner"
              ? simPlannerOutput(extra, contentRng, env.profile.planner)
              : simCriticOutput(extra, contentRng, env.profile.critic, gates),
          );
      return {
        text,
        // No tokenizer stands behind the sim: a count would be a guess, so usage is unknown.
        usage: null,
        reportedModel: role.model,
        fingerprint: `sim-profile:${env.profile.name}`,
        httpStatus: null,
        incomplete: null,
      };
    },
  };
}

/** The sim as its registry entry builds it for a role: from the client config's `sim` section (profile and run seed). */
export const simAdapter: InProcessAdapterFactory = (role, { sleep, settings }) => {
  const { profile = DEFAULT_SIM_PROFILE, runSeed } = SimSettingsSchema.parse(settings ?? {});
  return createSimAdapter(role, { profile, runSeed, sleep });
};
