/** The rejection of an answer its provider ended early, naming the provider's own field and value. */
function incompleteAnswer(field: string, value: string, meaning: string): string {
  return `the answer ended before it was complete (${field} ${value}: ${meaning})`;
}

/**
 * Chat Completions finish reasons (OpenAI's and compatible servers') that end an answer before its
 * end. Such an answer is invalid output even when its text parses: what parses is only what came
 * before the cut, and a cut findings list would read as a complete audit.
 */
const OPENAI_FINISH: Record<string, string> = {
  length: incompleteAnswer("finish_reason", "length", "the output limit"),
  content_filter: incompleteAnswer("finish_reason", "content_filter", "the provider's content filter"),
};

/** Messages API stop reasons that do the same; a forced tool call cut off at the limit still arrives, with the input it had so far. */
const ANTHROPIC_STOP: Record<string, string> = {
  max_tokens: incompleteAnswer("stop_reason", "max_tokens", "the output limit"),
  model_context_window_exceeded: incompleteAnswer("stop_reason", "model_context_window_exceeded", "the context window"),
  refusal: incompleteAnswer("stop_reason", "refusal", "the model declined"),
};

/** The rejection for a Chat Completions finish reason, or null when the answer finished. */
export const incompleteFinish = (finishReason: unknown): string | null => OPENAI_FINISH[String(finishReason)] ?? null;

/** The rejection for a Messages API stop reason, or null when the answer finished. */
export const incompleteStop = (stopReason: unknown): string | null => ANTHROPIC_STOP[String(stopReason)] ?? null;
