import type OpenAI from "openai";
import { VERSION } from "openai/version";
import { canonicalJson } from "../canonical.ts";
import {
  rejectNonAnswer,
  reportedText,
  reportedUsage,
  sentSampling,
  type AdapterEnv,
  type AdapterParts,
  type Conversation,
  type FormatKind,
  type HttpAdapterModule,
  type WireFacts,
} from "./adapter.ts";
import { textMemo } from "../text-memo.ts";
import { publicBaseUrl } from "./endpoint.ts";
import { incompleteFinish } from "./incomplete.ts";
import type { RoleSettings } from "./role-settings.ts";
import { lazySdk, sdkClientOptions } from "./sdk-client.ts";
import { sdkSend, type Answer, type SdkRequestOptions } from "./sdk-send.ts";

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
  const sdk = lazySdk(async () => {
    const { default: OpenAI } = await import("openai");
    return { errors: OpenAI, client: new OpenAI(sdkClientOptions(role, env)) };
  });
  return {
    sdkVersion: VERSION,
    baseUrl: publicBaseUrl(env.endpoint.url),
    formats: ["json_schema", "json_object"],
    render: (c, format) => chatRequest(role, env.endpoint.vendor, c, format),
    describe: describeChatRequest,
    send: sdkSend({ sdk, now: env.now, post: postChatCompletion, read: chatAnswer }),
  };
}

/** The Chat Completions body of a conversation, with the role's sampling settings. */
function chatRequest(role: RoleSettings, vendor: boolean, c: Conversation, format: FormatKind): Record<string, unknown> {
  return {
    model: role.model,
    messages: chatMessages(c, format),
    temperature: role.temperature,
    top_p: role.topP,
    seed: role.seed,
    // OpenAI's own endpoint deprecated max_tokens; compatible servers still expect it.
    ...(vendor ? { max_completion_tokens: role.maxTokens } : { max_tokens: role.maxTokens }),
    response_format: responseFormat(c, format),
  };
}

/** The system prompt (in JSON mode with the schema after it), the user prompt, then each failed answer and its correction. */
function chatMessages(c: Conversation, format: FormatKind): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: c.system }];
  if (format === "json_object") messages.push({ role: "system", content: JSON_MODE_SCHEMA_PREFIX + canonicalJson(c.schema) });
  messages.push({ role: "user", content: c.user });
  for (const fix of c.corrections) {
    messages.push({ role: "assistant", content: fix.rawText }, { role: "user", content: fix.feedback });
  }
  return messages;
}

/** The schema itself (strict where OpenAI allows it), or JSON mode for servers without json_schema. */
function responseFormat(c: Conversation, format: FormatKind): Record<string, unknown> {
  return format === "json_schema"
    ? { type: "json_schema", json_schema: { name: c.schemaName, schema: c.schema, strict: strictFor(c.schema) } }
    : { type: "json_object" };
}

/** The request facts of a Chat Completions body, whether this adapter rendered it or another program did. */
function describeChatRequest(body: Record<string, unknown>): WireFacts {
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
    schema: format.type === "json_schema" ? orNull(format.json_schema?.schema) : embedded ? JSON.parse(embedded.slice(JSON_MODE_SCHEMA_PREFIX.length)) : tools,
  };
}

/** Posts through the SDK's own Chat Completions method, which sends a string body as it is. */
function postChatCompletion(client: OpenAI, bodyJson: string, request: SdkRequestOptions) {
  return client.chat.completions.create(bodyJson as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming, request).withResponse();
}

/** The answer of a Chat Completions body: its first choice's text, why it ended, and what the server says of itself. */
function chatAnswer(data: OpenAI.ChatCompletion, status: number): Answer {
  rejectNonAnswer(data, Array.isArray(data?.choices), status);
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
