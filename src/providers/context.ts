import { createHash } from "node:crypto";
import { canonicalJson, sha256 } from "../canonical.ts";
import type { DecisionContext, ModelMismatch, Role } from "../formats/records.ts";
import { textMemo } from "../text-memo.ts";
import type { ProviderAdapter } from "./adapter.ts";

/**
 * The decision context of docs/design.md §7, read from the wire body the client is about to send (never
 * from a response). The user template is the one input the wire cannot carry, so it comes from the
 * request; a body another program built (an engine behind the proxy) has none: null.
 */
export function decisionContext(adapter: ProviderAdapter, body: Record<string, unknown>, userTemplate: string | null): DecisionContext {
  const facts = adapter.describe(body);
  return {
    provider: adapter.provider,
    base_url: adapter.baseUrl,
    model: facts.model,
    temperature: facts.temperature,
    top_p: facts.top_p,
    seed: facts.seed,
    max_tokens: facts.max_tokens,
    response_format: facts.response_format,
    system_prompt_sha256: sha256OfRepeated(facts.systemText),
    user_template_sha256: userTemplate === null ? null : sha256OfRepeated(userTemplate),
    user_prompt_sha256: sha256(facts.userPrompt),
    schema_sha256: facts.schema === null ? null : sha256OfRepeated(canonicalJson(facts.schema)),
    sdk: adapter.sdk,
    sdk_version: adapter.sdkVersion,
  };
}

const repeatedHashes = textMemo<string>();

/** SHA-256 of a text every call of a role repeats (system prompt, template, schema): hashed once per process. */
const sha256OfRepeated = (text: string) => repeatedHashes(text, () => sha256(text));

/**
 * The cache and replay key: the full canonical wire request (with its provider and endpoint) plus
 * role and trial index, so repeats never collapse and one model's answer never serves another.
 * It is `hashCanonical({ provider, base_url, body, role, trial })`, with the body's canonical
 * text (`bodyJson`, which an HTTP adapter also sends) spliced in rather than written again; the
 * members are in canonical (sorted) order.
 */
export function requestHash(adapter: Pick<ProviderAdapter, "provider" | "baseUrl">, bodyJson: string, role: Role, trial: number): string {
  // Fed in pieces: the body text is the bulk of the request and is hashed where it is, never copied into a larger string.
  return createHash("sha256")
    .update(`{"base_url":${canonicalJson(adapter.baseUrl)},"body":`, "utf8")
    .update(bodyJson, "utf8")
    .update(`,"provider":${canonicalJson(adapter.provider)},"role":${canonicalJson(role)},"trial":${canonicalJson(trial)}}`, "utf8")
    .digest("hex");
}

/**
 * The reply cache's key for a request: its request_sha256, or with the adapter's answer context
 * (the sim's seed and profile) when the answer depends on more than the request.
 */
export function replyCacheKey(adapter: Pick<ProviderAdapter, "answerContext">, requestSha256: string): string {
  return adapter.answerContext === undefined ? requestSha256 : sha256(`${requestSha256}\n${adapter.answerContext}`);
}

/** null when the provider reports the requested model; "snapshot" for `<model>-<more>`; "different" otherwise. */
export function modelMismatch(requested: string, reported: string | null): ModelMismatch {
  if (reported === null || reported === requested) return null;
  return reported.startsWith(`${requested}-`) ? "snapshot" : "different";
}
