import type { z } from "zod";
import { formatPath } from "../formats/load.ts";

type ParseOutcome<T> = { ok: true; value: T } | { ok: false; errorClass: "invalid_json" | "schema_mismatch" | "incomplete"; error: string };

/** Models often wrap JSON in a Markdown fence even when told not to; the fence is not part of the answer. */
const FENCED = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/;
/** Reasoning models served by compatible servers (Ollama, vLLM) may open with their reasoning; it is not part of the answer either. */
const REASONING = /^\s*<think>[\s\S]*?<\/think>/;

/** The JSON text of an answer: without a leading reasoning block and a Markdown fence around it. */
function answerJson(text: string): string {
  const answer = text.replace(REASONING, "");
  return FENCED.exec(answer)?.[1] ?? answer;
}

const MAX_ISSUES = 8;

/**
 * Parse a model's answer and validate it with zod; the error text is what gets fed back. An answer
 * its provider says it ended early (`incomplete`) is rejected unread: what parses of it is only
 * what came before the cut.
 */
export function parseStructured<T>(text: string, validator: z.ZodType<T>, incomplete: string | null = null): ParseOutcome<T> {
  if (incomplete !== null) return { ok: false, errorClass: "incomplete", error: incomplete };
  let data: unknown;
  try {
    data = JSON.parse(answerJson(text));
  } catch (e) {
    return { ok: false, errorClass: "invalid_json", error: `not valid JSON (${(e as Error).message})` };
  }
  const result = validator.safeParse(data);
  if (result.success) return { ok: true, value: result.data };
  const issues = result.error.issues.slice(0, MAX_ISSUES).map((i) => `${formatPath(i.path) || "(root)"}: ${i.message}`);
  const more = result.error.issues.length - issues.length;
  return { ok: false, errorClass: "schema_mismatch", error: issues.join("; ") + (more > 0 ? `; and ${more} more` : "") };
}

/** The user turn that carries a validation error back to the model. */
export function feedbackPrompt(error: string): string {
  return `Your previous answer was rejected: ${error}.\n` + "Answer again with exactly one JSON object that matches the required schema, and nothing else.";
}
