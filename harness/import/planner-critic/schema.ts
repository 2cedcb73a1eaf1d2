import { z } from "zod";

/**
 * The artefacts of PlannerCritic Engine 0.1.0 (predecessor-notes.md §1, §5.6, §7.4, Appendix A),
 * validated at the import boundary. Their models ignored unknown keys, so these schemas do too
 * (goal and assertion keys that fieldtest cannot use are reported by the conversion instead).
 */

const text = z.string().min(1);

/** One entry of `<goal>_<role>_llm_log.jsonl` (LoggingProvider, §7.4). */
export const LogEntrySchema = z.object({
  call: z.number().int().min(1),
  goal_id: z.string(),
  role: z.enum(["planner", "critic"]),
  model: text,
  timestamp: z.iso.datetime({ offset: true }),
  duration_seconds: z.number().min(0),
  prompt_messages: z.array(z.object({ role: z.string(), content: z.string() })),
  response_content: z.string().nullable(),
  finish_reason: z.string().nullable().optional(),
  error: z.string().nullable(),
});
export type LogEntry = z.output<typeof LogEntrySchema>;

const PredecessorPreconditionSchema = z.object({
  description: z.string().optional(),
  fact: text,
  established_by: z
    .string()
    .nullish()
    .transform((v) => v ?? null),
  probe: z.unknown().optional(),
});

const PredecessorVerificationSchema = z.object({ what: text, how: text, expected: text });
const PredecessorRollbackSchema = z.object({ trigger: text, action: text, safety_guard: z.string().default("") });

const PredecessorTaskSchema = z.object({
  id: text,
  description: text,
  action: z.string().default(""),
  target: z.string().default(""),
  parallel_group: z
    .string()
    .nullish()
    .transform((v) => v ?? null),
  preconditions: z.array(PredecessorPreconditionSchema).default([]),
  verification: PredecessorVerificationSchema.nullish().transform((v) => v ?? null),
  rollback: PredecessorRollbackSchema.nullish().transform((v) => v ?? null),
  risk_class: z.enum(["low", "medium", "high", "critical"]).default("medium"),
  blast_radius: z.string().default("medium"),
});

const PredecessorDependencySchema = z.object({
  from_task: text,
  to_task: text,
  kind: z.enum(["hard", "soft"]).default("hard"),
  reason: z.string().default(""),
});

/** PlanVersion, with the construction-time invariants its model enforced (§1.2). */
export const PredecessorPlanSchema = z
  .object({
    id: text,
    goal_id: text,
    plan_schema_version: z.string().default("0.1.0"),
    // pydantic's lax mode took "2" for 2.
    version: z.coerce.number().int().min(1),
    parent_version: z
      .string()
      .nullish()
      .transform((v) => v ?? null),
    created_at: z.string().optional(),
    tasks: z.array(PredecessorTaskSchema),
    dependencies: z.array(PredecessorDependencySchema).default([]),
    branches: z.array(z.unknown()).default([]),
  })
  .superRefine((plan, ctx) => {
    const ids = new Set<string>();
    const group = new Map<string, string | null>();
    plan.tasks.forEach((t, i) => {
      if (ids.has(t.id)) ctx.addIssue({ code: "custom", path: ["tasks", i, "id"], message: `duplicate task id "${t.id}"` });
      ids.add(t.id);
      group.set(t.id, t.parallel_group);
    });
    plan.dependencies.forEach((d, i) => {
      for (const end of ["from_task", "to_task"] as const)
        if (!ids.has(d[end])) ctx.addIssue({ code: "custom", path: ["dependencies", i, end], message: `not a task of the plan: "${d[end]}"` });
      if (d.from_task === d.to_task) ctx.addIssue({ code: "custom", path: ["dependencies", i], message: "a task depends on itself" });
      const g = group.get(d.from_task);
      if (d.kind === "hard" && g && g === group.get(d.to_task))
        ctx.addIssue({ code: "custom", path: ["dependencies", i], message: `hard dependency inside parallel group "${g}"` });
    });
  });
export type PredecessorPlan = z.output<typeof PredecessorPlanSchema>;
export type PredecessorTask = PredecessorPlan["tasks"][number];

const STATUSES = ["approved", "escalated", "error"] as const;
const nullable = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? null);

/** The outcome of one engine run: core-api nests it under `result`; the other dimensions write it at the top. */
const OutcomeSchema = z.object({
  status: z.enum(STATUSES),
  reason_code: nullable(z.string()),
  revision_count: nullable(z.number().int().min(0)),
  llm_calls: nullable(z.number().int().min(0)),
});

/**
 * A trace of an engine dimension (Appendix A): `core-api/<goal>/trace.json` with `result{...}`
 * and the final plan; `critique-<mode>`, `budget` and `replan-<policy>` traces with `status` and
 * `reason_code` (top level or under `result`) and no plan. A trace with only an `error` records an
 * engine run that raised: status error. Read into one shape.
 */
export const TraceSchema = z
  .object({
    dimension: z.string(),
    goal_id: text,
    duration_seconds: nullable(z.number().min(0)),
    result: OutcomeSchema.optional(),
    status: z.enum(STATUSES).optional(),
    reason_code: nullable(z.string()),
    plan: z.unknown().optional(),
    findings: z.array(z.unknown()).default([]),
    error: nullable(z.string()),
  })
  .superRefine((t, ctx) => {
    if (t.result === undefined && t.status === undefined && t.error === null)
      ctx.addIssue({ code: "custom", path: ["result"], message: "no engine outcome recorded (result.status, status or error)" });
  })
  .transform((t) => ({
    dimension: t.dimension,
    goal_id: t.goal_id,
    duration_seconds: t.duration_seconds,
    result: t.result ?? { status: t.status ?? ("error" as const), reason_code: t.reason_code, revision_count: null, llm_calls: null },
    plan: t.plan,
    findings: t.findings,
    error: t.error,
  }));
export type Trace = z.output<typeof TraceSchema>;

/** Any trace.json: its dimension says whether it records an engine run. */
export const TraceHeadSchema = z.object({ dimension: z.string(), goal_id: z.string().optional() });

/** A sweep's `report.json` (or `summary.json`, the same content): only the loop configuration is read. */
export const SweepReportSchema = z.object({
  meta: z.object({ loop_config: z.object({ mode: z.string(), revision_cap: z.number().int().min(1) }) }),
});

/** A corpus goal file (§1.1); keys outside the model are kept here so they can be reported. */
export const PredecessorGoalSchema = z.looseObject({
  id: text,
  description: z.string().refine((s) => s.trim() !== "", "must not be blank"),
  constraints: z
    .looseObject({
      budget: z
        .object({
          max_tokens: z.number().int().min(1).nullish(),
          max_calls: z.number().int().min(1).nullish(),
          max_revisions: z.number().int().min(1).nullish(),
        })
        .nullish(),
      time: z.string().nullish(),
      environment: z.string().nullish(),
      tools: z.array(z.string()).default([]),
    })
    .default({ tools: [] }),
  risk_tolerance: z.enum(["strict", "balanced", "permissive"]).default("balanced"),
  replan_policy: z.enum(["patch", "restart", "abort"]).default("patch"),
  approval_ttl: z.unknown().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
});
export type PredecessorGoal = z.output<typeof PredecessorGoalSchema>;

/** `<goal>.assertions.yaml` (§5.6, Appendix A). Every key is kept so the unmapped ones can be reported. */
export const AssertionsSchema = z.looseObject({
  invariants: z
    .looseObject({
      approve_expected: z.boolean().optional(),
      // null: not checked (the predecessor's field-test plan writes it for goals expected to escalate).
      max_revisions: z.number().int().min(0).nullable().optional(),
      min_tasks: z.number().int().min(0).optional(),
      mandatory_elements: z.array(z.string()).optional(),
      acceptable_escalation_reasons: z.array(z.string()).optional(),
    })
    .default({}),
});
export type Assertions = z.output<typeof AssertionsSchema>;

/** CritiqueOutput (§3.3) as the predecessor's parser took it: a missing findings key is zero findings. */
export const PredecessorCritiqueSchema = z.object({
  findings: z
    .array(
      z.object({
        heuristic_family: z.string(),
        severity: z.string(),
        task_id: z.string().nullish(),
        message: z.string().min(1),
        suggested_fix: z.string().nullish(),
      }),
    )
    .default([]),
});
