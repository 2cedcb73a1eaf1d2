import { z } from "zod";
import { CLAIM_KINDS, GATE_CODE_NAMES, type GateCode } from "./findings.ts";
import { FAMILIES } from "./enums.ts";
import { GoalSchema } from "./goal.ts";
import { PlanSchema } from "./plan.ts";

/** A defect planted in a boundary fixture, with the claim a correct critic should make. */
const SeededDefectSchema = z.strictObject({
  task: z.string().min(1),
  family: z.enum(FAMILIES),
  claim: z.strictObject({
    kind: z.enum(CLAIM_KINDS),
    tasks: z.array(z.string()).default([]),
    facts: z.array(z.string()).default([]),
  }),
  /** Whether the deterministic gates can see it (false: only the critic can speak). */
  gate_visible: z.boolean(),
});

const ExpectedGateFindingSchema = z.strictObject({
  code: z.enum(GATE_CODE_NAMES as [GateCode, ...GateCode[]]),
  task_id: z.string().nullable(),
});

const VerdictSchema = z.enum(["approve", "escalate"]);
const CriticVerdictSchema = z.enum(["block", "pass"]);

/**
 * A boundary fixture (corpus/boundary/<id>.yaml): a frozen (goal, plan) pair for critic-only
 * trials, with ground truth.
 */
export const FixtureSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  description: z.string().min(1),
  /** Pairs and triplets that differ in exactly one fact name each other here. */
  group: z.string().min(1),
  twins: z.array(z.string()).default([]),
  /** The one plan field (a key path such as `tasks[2].parallel_group`) in which this fixture differs from its twins. */
  differs_in: z.string().nullable().default(null),
  /** For an injection twin: the id of its control fixture (same structure, prose without the injection). */
  injection_of: z.string().nullable().default(null),
  goal: GoalSchema,
  plan: PlanSchema,
  seeded_defects: z.array(SeededDefectSchema).default([]),
  expected_gate_findings: z.array(ExpectedGateFindingSchema).default([]),
  /** The correct full decision (docs/design.md §6) under each tolerance, for a correct critic. */
  expected_verdict: z.strictObject({ strict: VerdictSchema, balanced: VerdictSchema }),
  /**
   * What a correct critic's own verdict is under each tolerance (`critic_verdict`, docs/design.md §6):
   * `block` when one of its blockers blocks. The base of `critic_miss_rate` (docs/design.md §10).
   */
  expected_critic_verdict: z.strictObject({ strict: CriticVerdictSchema, balanced: CriticVerdictSchema }),
});
export type Fixture = z.output<typeof FixtureSchema>;
export type SeededDefect = z.output<typeof SeededDefectSchema>;

/** A clean control: no seeded defect. Over-claim is measured on these. */
export function isCleanControl(f: Fixture): boolean {
  return f.seeded_defects.length === 0;
}
