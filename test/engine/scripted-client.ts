import type { z } from "zod";
import { hashCanonical, sha256 } from "../../src/canonical.ts";
import type { CallRecord, Role } from "../../src/formats/records.ts";
import { parseStructured } from "../../src/providers/structured-output.ts";
import type { LlmRequest, ModelClient, SendGuard, StructuredResult } from "../../src/providers/types.ts";
import { isSimExtra, type SimExtra } from "../../src/sim/extra.ts";

/**
 * A ModelClient test double that answers from per-role queues. Each answer is either text the
 * "model" returns (validated like the real client does: fenced JSON accepted, zod validator
 * applied, an invalid answer is `invalid_output` with the raw text kept) or a scripted failure.
 * Every answer fabricates one CallRecord with a decision context computed from the request, so
 * traces look like real ones. Reusable by any engine or runner test.
 */
export type ScriptedAnswer = { text: string } | { fail: "provider_error" | "budget_exceeded" };
/** A queued answer, or a function that answers from the request (e.g. by item or round). */
export type ScriptEntry = ScriptedAnswer | ((request: LlmRequest) => ScriptedAnswer);

interface ScriptOptions {
  /** Tokens each call reports (input, output); default 100 and 50. */
  usage?: { input_tokens: number; output_tokens: number };
  /** Price of each call; null models an unpriced model. Default 0. */
  costUsd?: number | null;
}

/** A JSON answer: objects are serialized as the model would send them. */
export const answer = (value: unknown): ScriptedAnswer => ({ text: typeof value === "string" ? value : JSON.stringify(value) });
export const providerError: ScriptedAnswer = { fail: "provider_error" };

/** What the engine told the sim beside the prompt (the request's extra), checked as the sim checks it. */
export function simExtraOf(request: LlmRequest): SimExtra {
  if (!isSimExtra(request.extra)) throw new Error(`the ${request.role} request carries no extra the sim can read`);
  return request.extra;
}

export class ScriptedClient implements ModelClient {
  /** Every request the engine sent, in order. */
  readonly requests: LlmRequest[] = [];
  private readonly queues: Record<Role, ScriptEntry[]>;

  constructor(
    script: Partial<Record<Role, ScriptEntry[]>>,
    private readonly options: ScriptOptions = {},
  ) {
    this.queues = { planner: [...(script.planner ?? [])], critic: [...(script.critic ?? [])] };
  }

  requestsFor(role: Role): LlmRequest[] {
    return this.requests.filter((r) => r.role === role);
  }

  /** Answers not yet consumed, per role (a test can assert the engine stopped asking). */
  remaining(role: Role): number {
    return this.queues[role].length;
  }

  async structured<T>(request: LlmRequest, validator: z.ZodType<T>, guard?: SendGuard): Promise<StructuredResult<T>> {
    // One scripted answer is one send: the caller's guard may refuse it before it is sent.
    if (guard && !guard({ calls: [], sending: [] }))
      return { ok: false, outcome: "budget_exceeded", rawText: null, error: "scripted budget refusal", calls: [] };
    this.requests.push(request);
    const entry = this.queues[request.role].shift();
    const next = typeof entry === "function" ? entry(request) : entry;
    if (!next) throw new Error(`script has no ${request.role} answer left (request ${this.requests.length})`);
    if ("fail" in next) {
      const calls = next.fail === "budget_exceeded" ? [] : [this.record(request, null, "error")];
      return { ok: false, outcome: next.fail, rawText: null, error: `scripted ${next.fail}`, calls };
    }
    const parsed = parseStructured(next.text, validator);
    if (!parsed.ok) {
      const calls = [this.record(request, next.text, "invalid_output", parsed.error)];
      return { ok: false, outcome: "invalid_output", rawText: next.text, error: parsed.error, calls };
    }
    return { ok: true, value: parsed.value, rawText: next.text, calls: [this.record(request, next.text, "ok")] };
  }

  private record(request: LlmRequest, rawText: string | null, outcome: CallRecord["outcome"], validationError: string | null = null): CallRecord {
    const ok = outcome !== "error";
    return {
      role: request.role,
      round: request.round,
      request_sha256: hashCanonical({ system: request.system, user: request.user, role: request.role, trial: request.trial }),
      attempt: 0,
      context: {
        provider: "scripted",
        base_url: null,
        model: "scripted-model",
        temperature: 0,
        top_p: null,
        seed: 7,
        max_tokens: null,
        response_format: "json_schema",
        system_prompt_sha256: sha256(request.system),
        user_template_sha256: sha256(request.userTemplate),
        user_prompt_sha256: sha256(request.user),
        schema_sha256: hashCanonical(request.schema),
        sdk: null,
        sdk_version: null,
      },
      reported: { model: ok ? "scripted-model" : null, system_fingerprint: null },
      model_mismatch: null,
      usage: ok ? (this.options.usage ?? { input_tokens: 100, output_tokens: 50 }) : null,
      cost_usd: this.options.costUsd === undefined ? 0 : this.options.costUsd,
      latency_ms: 0,
      outcome,
      error_class: outcome === "error" ? "scripted" : outcome === "invalid_output" ? "schema_mismatch" : null,
      http_status: ok ? 200 : 500,
      transport_attempts: [{ index: 0, latency_ms: 0, outcome: ok ? "ok" : "error", error_class: ok ? null : "scripted", http_status: ok ? 200 : 500 }],
      raw_text: rawText,
      validation_error: validationError,
      cached: false,
    };
  }
}
