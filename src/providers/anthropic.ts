import type Anthropic from "@anthropic-ai/sdk";
import { VERSION } from "@anthropic-ai/sdk/version";
import {
  rejectNonAnswer,
  reportedText,
  reportedUsage,
  sentSampling,
  type AdapterEnv,
  type AdapterParts,
  type Conversation,
  type HttpAdapterModule,
  type WireFacts,
} from "./adapter.ts";
import { publicBaseUrl } from "./endpoint.ts";
import { incompleteStop } from "./incomplete.ts";
import type { RoleSettings } from "./role-settings.ts";
import { lazySdk, sdkClientOptions } from "./sdk-client.ts";
import { sdkSend, type Answer, type SdkRequestOptions } from "./sdk-send.ts";

/** The Messages API requires max_tokens; this is what is sent (and recorded) when the config sets none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

type Block = { type: string; text?: string; input?: unknown };
interface Message {
  role: string;
  content: string | Block[];
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .filter((b: Block) => b.type === "text")
      .map((b: Block) => b.text ?? "")
      .join("\n");
  return "";
}

function parsesToObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Anthropic Messages API; structured output is a forced call of one tool whose input schema is the output schema. */
function createAnthropicAdapter(role: RoleSettings, env: AdapterEnv): AdapterParts {
  const sdk = lazySdk(async () => {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    return { errors: Anthropic, client: new Anthropic(sdkClientOptions(role, env)) };
  });
  return {
    sdkVersion: VERSION,
    baseUrl: publicBaseUrl(env.endpoint.url),
    formats: ["tool"],
    render: (c) => messagesRequest(role, c),
    describe: describeMessagesRequest,
    send: sdkSend({ sdk, now: env.now, post: postMessages, read: messagesAnswer }),
  };
}

/** The Messages API body of a conversation: the output schema is the one tool the model must call. */
function messagesRequest(role: RoleSettings, c: Conversation): Record<string, unknown> {
  return {
    model: role.model,
    max_tokens: role.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    temperature: role.temperature,
    top_p: role.topP,
    system: c.system,
    messages: [{ role: "user", content: c.user }, ...c.corrections.flatMap((fix, i) => correctionTurns(fix, `correction_${i}`, c.schemaName))],
    tools: [{ name: c.schemaName, description: "Record the answer.", input_schema: c.schema }],
    tool_choice: { type: "tool", name: c.schemaName },
  };
}

/** A failed answer and its correction; a tool answer is corrected through a tool_result, as the Messages API expects. */
function correctionTurns(fix: Conversation["corrections"][number], id: string, toolName: string): Message[] {
  const input = parsesToObject(fix.rawText);
  if (input) {
    return [
      { role: "assistant", content: [{ type: "tool_use", id, name: toolName, input } as Block] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: id, is_error: true, content: fix.feedback } as Block] },
    ];
  }
  return [
    { role: "assistant", content: fix.rawText || "(empty)" },
    { role: "user", content: fix.feedback },
  ];
}

/** The request facts of a Messages API body, whether this adapter rendered it or another program did. */
function describeMessagesRequest(body: Record<string, unknown>): WireFacts {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Message[];
  const choice = body.tool_choice as { type?: string } | undefined;
  return {
    model: typeof body.model === "string" ? body.model : "",
    // The Messages API has no seed, so none is sent and the sampling facts record null.
    ...sentSampling(body),
    response_format: choice?.type === "tool" || choice?.type === "any" ? "tool" : "none",
    systemText: textOf(body.system),
    userPrompt: textOf(messages.find((m) => m.role === "user")?.content),
    schema: body.tools ?? null,
  };
}

/**
 * Posts through the SDK client's own POST of the Messages endpoint, which sends a string body as it
 * is: messages.create reads the body's fields and would write the text again.
 */
function postMessages(client: Anthropic, bodyJson: string, request: SdkRequestOptions) {
  return client.post<Anthropic.Message>("/v1/messages", { body: bodyJson, ...request }).withResponse();
}

/** The answer of a Messages API body: the forced tool call's input, why it stopped, and the model it names. */
function messagesAnswer(data: Anthropic.Message, status: number): Answer {
  rejectNonAnswer(data, Array.isArray(data?.content), status);
  // Anthropic-format servers may omit usage (or content): the call is still recorded, usage null.
  const content = Array.isArray(data.content) ? data.content : [];
  const tool = content.find((b) => b.type === "tool_use");
  return {
    // A tool call without input carries no answer; then whatever text blocks came is the text.
    text: tool?.input !== undefined ? JSON.stringify(tool.input) : textOf(data.content),
    incomplete: incompleteStop(data.stop_reason),
    usage: reportedUsage(data.usage?.input_tokens, data.usage?.output_tokens),
    reportedModel: reportedText(data.model),
    fingerprint: null,
  };
}

export const ANTHROPIC_ADAPTER: HttpAdapterModule = {
  create: createAnthropicAdapter,
  cannedAnswer: JSON.stringify({
    id: "rehearsal",
    type: "message",
    role: "assistant",
    model: "rehearsal",
    content: [{ type: "tool_use", id: "rehearsal", name: "rehearsal", input: { findings: [] } }],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  }),
};
