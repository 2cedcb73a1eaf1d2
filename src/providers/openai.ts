import type OpenAI from "openai";
import { VERSION } from "openai/version";
import { canonicalJson } from "../canonical.ts";
import {
  classifySdkError,
  rejectNonAnswer,
  reportedText,
  reportedUsage,
  sentSampling,
  type AdapterEnv,
  type AdapterParts,
  type Conversation,
  type FormatKind,
  type HttpAdapterModule,
  type Reply,
  type SendOptions,
  type WireFacts,
} from "./adapter.ts";
import { textMemo } from "../text-memo.ts";
import { publicBaseUrl } from "./endpoint.ts";
import { timingFetchOptions } from "./http-fetch.ts";
import { incompleteFinish } from "./incomplete.ts";
import type { RoleSettings } from "./role-settings.ts";
import { JSON_CONTENT, lazySdk, sdkClientOptions } from "./sdk-client.ts";

/** JSON mode carries the schema in a system message, since the response format cannot. */
const JSON_MODE_SCHEMA_PREFIX = "Answer with one JSON object that matches this JSON Schema:\n";

interface ChatMessage {
  role: string;
  content: unknown;
}

/** OpenAI strict mode accepts only closed objects whose properties are all required. */
export function isStrictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  if (schema === null || typeof schema !== "object") return true;
  const s = schema as Record<string, unknown>;
  if (s.type === "object" || s.properties) {
    const keys = Object.keys((s.properties as object | undefined) ?? {});
    const required = new Set((s.required as string[] | undefined) ?? []);
    if (s.additionalProperties !== false || !keys.every((k) => required.has(k))) return false;
  }
  return Object.values(s).every(isStrictCompatible);
}

const strictness = textMemo<boolean>();

/** isStrictCompatible once per schema text (every request of a role carries the same schema). */
const strictFor = (schema: Record<string, unknown>) => strictness(canonicalJson(schema), () => isStrictCompatible(schema));

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (p as { text?: string }).text ?? "").join("\n");
  return "";
}

/** The arguments of the first function call of an answer, as the text of the answer it stands for. */
function toolArguments(calls: unknown): string {
  const first = Array.isArray(calls) ? (calls[0] as { function?: { arguments?: unknown } } | undefined) : undefined;
  return typeof first?.function?.arguments === "string" ? first.function.arguments : "";
}

function orNull<T>(v: T | undefined | null): T | null {
  return v ?? null;
}

/** Chat Completions for OpenAI and any OpenAI-compatible server (Ollama, vLLM, llama.cpp, OpenRouter). */
function createOpenAiAdapter(role: RoleSettings, env: AdapterEnv): AdapterParts {
  const isVendor = env.endpoint.vendor;
  const sdk = lazySdk(async () => {
    const { default: OpenAI } = await import("openai");
    return { OpenAI, client: new OpenAI(sdkClientOptions(role, env)) };
  });

  return {
    sdkVersion: VERSION,
    baseUrl: publicBaseUrl(env.endpoint.url),
    formats: ["json_schema", "json_object"],

    render(c: Conversation, format: FormatKind) {
      const messages: ChatMessage[] = [{ role: "system", content: c.system }];
      if (format === "json_object") messages.push({ role: "system", content: JSON_MODE_SCHEMA_PREFIX + canonicalJson(c.schema) });
      messages.push({ role: "user", content: c.user });
      for (const fix of c.corrections) {
        messages.push({ role: "assistant", content: fix.rawText }, { role: "user", content: fix.feedback });
      }
      return {
        model: role.model,
        messages,
        temperature: role.temperature,
        top_p: role.topP,
        seed: role.seed,
        // OpenAI's own endpoint deprecated max_tokens; compatible servers still expect it.
        ...(isVendor ? { max_completion_tokens: role.maxTokens } : { max_tokens: role.maxTokens }),
        response_format:
          format === "json_schema"
            ? { type: "json_schema", json_schema: { name: c.schemaName, schema: c.schema, strict: strictFor(c.schema) } }
            : { type: "json_object" },
      };
    },

    describe(body): WireFacts {
      const messages = (Array.isArray(body.messages) ? body.messages : []) as ChatMessage[];
      const format = (body.response_format as { type?: string; json_schema?: { schema?: unknown } } | undefined) ?? {};
      // A body another program built may ask for its answer as a function call instead.
      const tools = Array.isArray(body.tools) && body.tools.length > 0 ? body.tools : null;
      const system = messages.filter((m) => m.role === "system" || m.role === "developer").map((m) => textOf(m.content));
      const embedded = system.find((t) => t.startsWith(JSON_MODE_SCHEMA_PREFIX));
      return {
        model: typeof body.model === "string" ? body.model : "",
        ...sentSampling(body, ["max_completion_tokens", "max_tokens"]),
        response_format: format.type === "json_schema" ? "json_schema" : format.type === "json_object" ? "json_object" : tools ? "tool" : "none",
        systemText: system.join("\n"),
        userPrompt: textOf(messages.find((m) => m.role === "user")?.content),
        schema:
          format.type === "json_schema" ? orNull(format.json_schema?.schema) : embedded ? JSON.parse(embedded.slice(JSON_MODE_SCHEMA_PREFIX.length)) : tools,
      };
    },

    async send(bodyJson, options: SendOptions): Promise<Reply> {
      const { OpenAI, client } = await sdk();
      try {
        const { data, response } = await client.chat.completions
          .create(bodyJson as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming, {
            timeout: options.timeoutMs,
            headers: JSON_CONTENT,
            fetchOptions: timingFetchOptions(options.timing),
          })
          .withResponse();
        rejectNonAnswer(data, Array.isArray(data?.choices), response.status);
        const choice = Array.isArray(data.choices) ? data.choices[0] : undefined;
        const message = choice?.message;
        return {
          // Some compatible servers answer with content parts; a forced function call answers in its
          // arguments; anything else that is not text is no text.
          text: textOf(message?.content) || textOf(message?.refusal) || toolArguments(message?.tool_calls),
          incomplete: incompleteFinish(choice?.finish_reason),
          usage: reportedUsage(data.usage?.prompt_tokens, data.usage?.completion_tokens),
          reportedModel: reportedText(data.model),
          fingerprint: reportedText(data.system_fingerprint),
          httpStatus: response.status,
          ...(options.wire ? { raw: data } : {}),
        };
      } catch (e) {
        throw classifySdkError(e, OpenAI, env.now());
      }
    },
  };
}

export const OPENAI_ADAPTER: HttpAdapterModule = {
  create: createOpenAiAdapter,
  cannedAnswer: JSON.stringify({
    id: "rehearsal",
    object: "chat.completion",
    created: 0,
    model: "rehearsal",
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: '{"findings":[]}', refusal: null } }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }),
};
