import fc from "fast-check";
import { GoalSchema, type Goal } from "../../src/formats/goal.ts";
import type { Plan } from "../../src/formats/plan.ts";
import type { LlmRequest } from "../../src/providers/types.ts";
import type { SimExtra } from "../../src/sim/extra.ts";
import { CRITIC_SCHEMA } from "./helpers.ts";

export const GOAL: Goal = GoalSchema.parse({
  id: "db-split-tenants",
  domain: "database",
  title: "Split the shared tenant database",
  description: "Split it.",
  risk_tolerance: "strict",
  constraints: { facts: ["maintenance_window_booked"], tools: ["psql"] },
});

export function simRequest(role: "planner" | "critic", extra: SimExtra, over: Partial<LlmRequest> = {}): LlmRequest {
  return {
    role,
    itemId: extra.goal.id,
    trial: 0,
    round: 0,
    system: `sim ${role}`,
    userTemplate: "{{goal}}",
    user: JSON.stringify(extra.goal),
    schemaName: role === "planner" ? "plan" : "critic_findings",
    schema: role === "planner" ? { type: "object" } : CRITIC_SCHEMA,
    extra,
    ...over,
  };
}

export function criticExtra(plan: Plan, over: Partial<SimExtra> = {}): SimExtra {
  return { goal: GOAL, plan, ...over };
}

/** Descriptions that split into no clause at all: the schema allows them (non-empty), they carry no letter or digit. */
export const CONTENTLESS_DESCRIPTIONS = [" ", ".", "...", "\n", "\t \n", ";;;", " , ; ", "?!", "— … ·", " , then . ; "] as const;

const word = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9'/.-]{0,11}$/);
/** What may stand between two fragments of prose, the clause separators among them. */
const joint = fc.constantFrom(" ", ", ", ", then ", ", and ", ", and then ", "; ", ". ", "! ", "? ", ".\n\n", "  ", " then ", ": ", " (", ") ");
const prose = (maxPieces: number) =>
  fc
    .array(
      fc.tuple(
        fc.array(word, { minLength: 1, maxLength: 8 }).map((ws) => ws.join(" ")),
        joint,
      ),
      { minLength: 1, maxLength: maxPieces },
    )
    .map((pieces) => pieces.map(([text, sep]) => text + sep).join(""));

/**
 * Goal descriptions of every shape the schema allows: multi-sentence prose, long prose (more
 * clauses than the planner keeps), arbitrary and unicode strings, and contentless ones.
 */
export const descriptionArb = fc.oneof(
  prose(6),
  prose(60),
  fc.string({ minLength: 1, maxLength: 120 }),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 60 }),
  fc.constantFrom(...CONTENTLESS_DESCRIPTIONS),
);

/** Any goal the schema accepts, as far as the sim planner reads it. */
export const goalArb = fc
  .record({
    id: fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,20}$/),
    domain: fc.oneof(fc.constantFrom("database", "kubernetes", "dns", "search"), fc.string({ minLength: 1, maxLength: 12 })),
    title: fc.oneof(fc.constant("T"), fc.string({ minLength: 1, maxLength: 40 })),
    description: descriptionArb,
    facts: fc.uniqueArray(fc.stringMatching(/^[a-z][a-z_]{0,10}$/), { maxLength: 3 }),
  })
  .map(({ id, domain, title, description, facts }) => GoalSchema.parse({ id, domain, title, description, risk_tolerance: "balanced", constraints: { facts } }));
