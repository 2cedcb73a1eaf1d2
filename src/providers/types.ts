import type { z } from "zod";
import type { CallRecord, Role, TransportAttempt, Usage } from "../formats/records.ts";
import type { Reply } from "./adapter.ts";
import type { WireProvider } from "./registry.ts";

/** One structured request, provider-neutral. The client turns it into a wire request per provider. */
export interface LlmRequest {
  role: Role;
  itemId: string;
  trial: number;
  round: number;
  system: string;
  /** The template text before rendering; its hash is `user_template_sha256`. */
  userTemplate: string;
  /** The rendered user message. */
  user: string;
  /** Name and JSON Schema of the expected output (tool name for Anthropic). */
  schemaName: string;
  schema: Record<string, unknown>;
  /**
   * What an in-process provider reads beside the prompt (the sim: src/sim/extra.ts), built by the
   * planner and the critic; opaque to the client and every other provider, never sent or hashed.
   */
  extra?: unknown;
  /** The trial making the request, as the harness keys it (`suite/item/trial`): handed to the client's hooks with every send. */
  trialKey?: string;
}

export type StructuredResult<T> =
  | { ok: true; value: T; rawText: string; calls: CallRecord[] }
  | {
      ok: false;
      /** invalid_output: the model answered but never validly; provider_error: no usable answer after retries; budget_exceeded: refused before sending. */
      outcome: "invalid_output" | "provider_error" | "budget_exceeded";
      rawText: string | null;
      error: string;
      calls: CallRecord[];
    };

/**
 * A caller's own spending limit on one request, asked before every send (structured-output
 * retries and transport retries included) with what the request has made so far: the call records
 * of its finished attempts and the transport attempts of the one in progress. false refuses the
 * send, and the request ends as `budget_exceeded`.
 */
export type SendGuard = (made: { calls: readonly CallRecord[]; sending: readonly TransportAttempt[] }) => boolean;

/** The engine's only door to a model: one place for hashing, retries, accounting, caching, events. */
export interface ModelClient {
  structured<T>(request: LlmRequest, validator: z.ZodType<T>, guard?: SendGuard): Promise<StructuredResult<T>>;
}

/** A wire body another program built (an external engine, through the recording proxy), to send as it is. */
export interface ForwardRequest {
  role: Role;
  /** The wire format the body is in: it must be the role's provider's. */
  wire: WireProvider;
  body: Record<string, unknown>;
  /**
   * The text the replay and cache key is computed from: the body's canonical text after the
   * engine's normalisation rules (a timestamp the engine writes into its prompts); absent, the
   * body's own canonical text.
   */
  keyText?: string;
  itemId: string;
  trial: number;
  round: number;
  /** 0 for a new request; n for the n-th identical resend of a body (the sender rejected an answer). */
  attempt: number;
  trialKey: string;
}

export interface ForwardResult {
  record: CallRecord;
  /** The answer (its `raw` wire body when a provider sent one now; a stored answer has only its parts); null when none came. */
  reply: Reply | null;
  /** Why no answer came: a transport failure after the retries, a budget refusal, or a replay miss. */
  failure: { errorClass: string; httpStatus: number | null; message: string } | null;
}

/** Sends wire bodies others built: what the recording proxy forwards through. */
export interface WireForwarder {
  forward(request: ForwardRequest): Promise<ForwardResult>;
}

/**
 * One send to a provider, reported as it leaves and again as it returns (paired by `id`, unique
 * per client), so a harness can journal spend before the call, let alone the trial, is done.
 */
export type AttemptEvent =
  | {
      phase: "sent";
      id: number;
      role: Role;
      provider: WireProvider;
      model: string;
      round: number;
      /** Structured-output attempt and transport attempt (retry) index within it. */
      attempt: number;
      index: number;
    }
  | {
      phase: "returned";
      id: number;
      role: Role;
      outcome: TransportAttempt["outcome"];
      error_class: string | null;
      http_status: number | null;
      usage: Usage | null;
      /** null: unknown (no usage, unpriced model, or a failure that may have been billed). */
      cost_usd: number | null;
    };
