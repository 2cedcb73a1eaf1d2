import { z } from "zod";
import { SimSettingsSchema } from "../sim/profile.ts";
import { REPLAY, WIRE_PROVIDERS } from "./registry.ts";
import { RoleSettingsShape } from "./role-settings.ts";

/** Replay: answer from a previous run's recorded calls, rendering requests as the original provider did. */
const ReplaySettingsSchema = z.strictObject({
  /** The recorded run (its folder; the harness reads its trials and hands them to the client). */
  runDir: z.string().min(1),
  /** The provider the recorded run used; requests are rendered (and hashed) in its wire format. */
  as: z.enum(WIRE_PROVIDERS),
  /** On a miss, call the live `as` provider instead of failing. */
  fallThrough: z.boolean().default(false),
});

/** What a role may name as its provider: a wire provider, or `replay` of a recorded run. */
export const ROLE_PROVIDERS = [...WIRE_PROVIDERS, REPLAY] as const;

/** A line break or NUL: what would end an HTTP header line early (and so smuggle another header in, or fail every send). */
const HEADER_BREAK = /[\r\n\0]/;

/** Header text as an input gives it (a name, a value, or `--header`'s K=V): one line. */
export const HeaderTextSchema = z.string().refine((text) => !HEADER_BREAK.test(text), "a header may not hold a line break (CR, LF) or NUL");

/** Extra request headers as a config file gives them: each name and value one line. */
export const HeadersSchema = z.record(HeaderTextSchema, HeaderTextSchema);

export const RoleConfigSchema = z
  .strictObject({
    provider: z.enum(ROLE_PROVIDERS),
    ...RoleSettingsShape,
    replay: ReplaySettingsSchema.optional(),
  })
  .refine((r) => (r.provider === REPLAY) === (r.replay !== undefined), {
    message: 'provider "replay" needs replay settings ({runDir, as}) and only it takes them',
    path: ["replay"],
  });
export type RoleConfig = z.output<typeof RoleConfigSchema>;
export type RoleConfigInput = z.input<typeof RoleConfigSchema>;

const CacheSettingsSchema = z.strictObject({
  dir: z.string().min(1),
  enabled: z.boolean().default(true),
});

export const ClientConfigSchema = z.strictObject({
  planner: RoleConfigSchema,
  critic: RoleConfigSchema,
  /** Off unless given: live trials buy fresh answers; replay and tests turn it on. */
  cache: CacheSettingsSchema.optional(),
  /** Structured-output attempts per call (the first ask plus feedback retries). */
  maxOutputAttempts: z.number().int().min(1).default(3),
  /** Transport retries per structured-output attempt (429, 5xx, timeouts, resets). */
  maxRetries: z.number().int().min(0).default(4),
  /** The sim provider's own settings (its profile and run seed), handed to it alone. */
  sim: SimSettingsSchema.optional(),
});
export type ClientConfig = z.input<typeof ClientConfigSchema>;
export type ResolvedClientConfig = z.output<typeof ClientConfigSchema>;
