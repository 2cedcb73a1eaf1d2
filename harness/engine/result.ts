import { z } from "zod";
import { normalizeCriticFindings } from "../../src/critic/normalize.ts";
import type { Goal } from "../../src/formats/goal.ts";
import { issueAt } from "../../src/formats/load.ts";
import { PlanSchema, type Plan } from "../../src/formats/plan.ts";
import { EngineFindingSchema, TRIAL_STATUSES, type CriticAudit, type EngineFinding } from "../../src/formats/records.ts";

/**
 * The result contract (`fieldtest schema engine-result`): what an engine, or the translator that
 * reads its own output, hands fieldtest for one trial. Plans are in fieldtest's plan format
 * (docs/design.md §3); fieldtest runs its own gates on every one of them.
 */
export const EngineResultSchema = z.strictObject({
  /** The engine's decision; `error` when it could not reach one. */
  status: z.enum(TRIAL_STATUSES),
  /** Why it escalated, in its own words (its reason codes). */
  reasons: z.array(z.string()).default([]),
  error: z.string().nullable().default(null),
  /** One per plan the engine checked, in order; the last one holds the plan it approved or escalated. */
  rounds: z
    .array(
      z.strictObject({
        plan: PlanSchema,
        /** Tasks a translator invented in converting the engine's plan (the engine has no such task): no gate finding rests on them alone. */
        translated_tasks: z.array(z.string()).default([]),
        /** The engine's own findings on this plan, as it reports them. */
        findings: z.array(EngineFindingSchema).default([]),
        /** The critic's answer on this plan in fieldtest's critic format (docs/design.md §5), when the engine keeps it: fieldtest normalises it and checks its evidence. */
        critic: z
          .strictObject({ findings: z.array(z.unknown()) })
          .nullable()
          .default(null),
      }),
    )
    .default([]),
});
type EngineResult = z.output<typeof EngineResultSchema>;

/** One round of an engine's trial, read: the plan, what fieldtest makes of the critic's answer, and what the engine said. */
interface EngineRound {
  plan: Plan;
  translatedTasks: string[];
  engineFindings: EngineFinding[];
  /** fieldtest's reading of the critic's answer on this plan; null when none is known. */
  critic: CriticAudit | null;
}

/** An engine's trial as the harness reads it, whatever format the engine wrote. */
export interface EngineRun {
  status: EngineResult["status"];
  reasons: string[];
  error: string | null;
  rounds: EngineRound[];
}

/** A result that could not be read, with where: the trial is `engine_error`. */
export class UnreadableResult extends Error {}

/** Validates a result in the contract's format; an invalid one is unreadable, named by its key path. */
function parseEngineResult(data: unknown): EngineResult {
  const parsed = EngineResultSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const { path, detail } = issueAt(parsed.error.issues[0]!, data);
  throw new UnreadableResult(`${path ? `${path}: ` : ""}${detail}`);
}

/** The contract's result as the harness reads it: each critic answer normalised on the plan it reviewed. */
export function readFieldtestResult(data: unknown, goal: Goal): EngineRun {
  const result = parseEngineResult(data);
  return {
    status: result.status,
    reasons: result.reasons,
    error: result.error,
    rounds: result.rounds.map((r) => ({
      plan: r.plan,
      translatedTasks: r.translated_tasks,
      engineFindings: r.findings,
      critic: r.critic === null ? null : normalizeCriticFindings(goal, r.plan, r.critic.findings, JSON.stringify(r.critic)),
    })),
  };
}
