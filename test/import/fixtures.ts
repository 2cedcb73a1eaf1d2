import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Builders for PlannerCritic 0.1.0 artefacts, in the shapes its field test wrote (predecessor-notes.md Appendix A). */

/** A copy of the PlannerCritic 0.1.0 sample artefacts kept in the repository (MIT, see its LICENSE). */
export const SAMPLE = fileURLToPath(new URL("../fixtures/planner-critic-0.1.0", import.meta.url));

const created: string[] = [];

/** A fresh folder under the OS temp dir; `removeTempDirs` (each file's afterAll) deletes them. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `fieldtest-import-${prefix}-`));
  created.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function writeFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

interface EntryFields {
  call: number;
  role: "planner" | "critic";
  timestamp: string;
  duration_seconds: number;
  response: unknown;
  goal_id?: string;
  /** The system message (default: a fixed one per role). */
  system?: string;
  /** The user message (default: `GOAL: call N`). */
  user?: string;
}

/** One LoggingProvider entry; an object response is written as the JSON text the model returned. */
export function logEntry(f: EntryFields): Record<string, unknown> {
  const system = f.system ?? (f.role === "planner" ? "You are a planner." : "/no_think You are a plan reviewer.");
  const user = f.user ?? `GOAL: call ${f.call}`;
  return {
    call: f.call,
    goal_id: f.goal_id ?? "hand-01",
    role: f.role,
    model: "openai/gpt-4o-mini",
    timestamp: f.timestamp,
    duration_seconds: f.duration_seconds,
    prompt_messages: [
      { role: "system", content: system, content_len: system.length },
      { role: "user", content: user, content_len: user.length },
    ],
    prompt_full_text: "",
    prompt_total_chars: 0,
    response_content: typeof f.response === "string" ? f.response : JSON.stringify(f.response),
    response_chars: 0,
    finish_reason: "stop",
    error: null,
  };
}

/** Entries as the LoggingProvider appended them: `indent=2` objects back to back. */
export function logText(entries: readonly Record<string, unknown>[]): string {
  return entries.map((e) => `${JSON.stringify(e, null, 2)}\n`).join("");
}

export function predecessorTask(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    description: `Do ${id}`,
    action: "run",
    target: "db",
    parallel_group: null,
    preconditions: [],
    verification: null,
    rollback: null,
    risk_class: "low",
    blast_radius: "low",
    ...fields,
  };
}

export function predecessorPlan(tasks: unknown[], dependencies: [string, string][], fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "hand-01-plan",
    goal_id: "hand-01",
    plan_schema_version: "0.1.0",
    version: 1,
    parent_version: null,
    created_at: "2026-08-20T10:00:00Z",
    tasks,
    dependencies: dependencies.map(([from_task, to_task]) => ({ from_task, to_task, kind: "hard", reason: "" })),
    branches: [],
    ...fields,
  };
}

export function trace(
  plan: unknown,
  result: { status: string; reason_code: string | null; revision_count: number; llm_calls: number },
  goalId = "hand-01",
): Record<string, unknown> {
  return { dimension: "core-api", goal_id: goalId, duration_seconds: 4.5, result, plan, findings: [], escalation: null, checks: [], error: null, pass: true };
}

/** A reports folder and a goals folder laid out as the predecessor's field test wrote them. */
export function writeFieldTest(
  root: string,
  o: { goal: unknown; assertions?: string; trace: unknown; planner: string; critic?: string; goalId?: string },
): { reports: string; goals: string } {
  const id = o.goalId ?? "hand-01";
  const reports = join(root, "reports");
  const goals = join(root, "goals");
  const run = join(reports, "batch", id, "core-api", id);
  writeFile(join(goals, `${id}.json`), JSON.stringify(o.goal, null, 2));
  if (o.assertions !== undefined) writeFile(join(goals, `${id}.assertions.yaml`), o.assertions);
  writeFile(join(run, "trace.json"), JSON.stringify(o.trace, null, 2));
  writeFile(join(run, "llm-logs", `${id}_planner_llm_log.jsonl`), o.planner);
  if (o.critic !== undefined) writeFile(join(run, "llm-logs", `${id}_critic_llm_log.jsonl`), o.critic);
  writeFile(
    join(reports, "batch", id, "report.json"),
    JSON.stringify({ meta: { date: "2026-08-20", config: "x.toml", loop_config: { mode: "deterministic-first", revision_cap: 4 } } }),
  );
  return { reports, goals };
}

export const HAND_GOAL = {
  id: "hand-01",
  description: "Migrate the orders database behind a backup",
  constraints: { environment: "production", tools: ["psql"] },
  risk_tolerance: "strict",
  replan_policy: "patch",
};

/** Two critic system prompts of the predecessor's history: before and after its severity contract. */
export const CRITIC_PROMPTS = {
  adversarial: "/no_think You are an adversarial plan reviewer. Find every problem with the plan. Reply with ONLY a JSON object with a findings array.",
  severity:
    "/no_think You are a plan reviewer. Reply with ONLY a JSON object.\nSEVERITY RULES: blocker is reserved ONLY for concrete, plan-local defects; risk and missing_steps are warnings.",
} as const;

/** What a critic said about the two-task plan of `treeGoal`: advisory families as blockers or as warnings. */
function critique(advisorySeverity: "blocker" | "warning"): Record<string, unknown> {
  return {
    findings: [
      {
        heuristic_family: "risk",
        severity: advisorySeverity,
        task_id: "migrate_db",
        message: "Large tables may lock during the migration.",
        suggested_fix: null,
      },
      {
        heuristic_family: "missing_steps",
        severity: advisorySeverity,
        task_id: null,
        message: "No announcement of the maintenance window.",
        suggested_fix: null,
      },
      {
        heuristic_family: "weak_rollback",
        severity: "warning",
        task_id: "migrate_db",
        message: "The rollback could restore from the backup faster.",
        suggested_fix: null,
      },
    ],
  };
}

/** A goal of the generated tree, in the predecessor corpus layout (goals/<domain>/<id>.json and goals/<domain>/assertions/<id>.yaml). */
function treeGoal(id: string, risk: "strict" | "balanced"): Record<string, unknown> {
  return {
    id,
    description: `Migrate the ${id} database behind a backup`,
    constraints: { environment: "production", tools: ["psql"] },
    risk_tolerance: risk,
    replan_policy: "patch",
  };
}

function treePlan(goalId: string): Record<string, unknown> {
  const rollback = { trigger: "migration fails", action: "restore the backup", safety_guard: "" };
  const verification = { what: "row counts", how: "count rows", expected: "equal" };
  return predecessorPlan(
    [predecessorTask("take_backup", { verification }), predecessorTask("migrate_db", { risk_class: "high", rollback, verification })],
    [["take_backup", "migrate_db"]],
    { id: `plan-${goalId}`, goal_id: goalId },
  );
}

export interface TreeRun {
  /** The trace's folder under reports/, e.g. `0.1.0/full-sweep/core-api/db-01`. */
  dir: string;
  goalId: string;
  /** The trace's dimension field: core-api, critique-<mode>, budget, replan-<policy>. */
  dimension: string;
  status: "approved" | "escalated" | "error";
  reason: string | null;
  /** The critic's system prompt; null when the critic's calls were not logged (or never made). */
  critic: keyof typeof CRITIC_PROMPTS | null;
  /** When the run started (ISO, whole seconds). */
  at: string;
}

/**
 * One engine run as the predecessor's harness wrote it: the trace in the dimension's shape
 * (core-api: result and plan; the others: status at the top, no plan) and its logs beside it.
 * Returns the number of calls it logged.
 */
export function writeTreeRun(reports: string, r: TreeRun): number {
  const dir = join(reports, r.dir);
  const plan = treePlan(r.goalId);
  const t0 = Date.parse(r.at);
  const iso = (s: number) => new Date(t0 + s * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const outcome = { status: r.status, reason_code: r.reason };
  const body =
    r.dimension === "core-api"
      ? { ...trace(plan, { ...outcome, revision_count: 1, llm_calls: r.critic ? 1 : 0 }, r.goalId) }
      : r.dimension.startsWith("replan-")
        ? { dimension: r.dimension, goal_id: r.goalId, result: outcome }
        : { dimension: r.dimension, goal_id: r.goalId, duration_seconds: 6, ...outcome, findings: [], checks: [], pass: true };
  writeFile(join(dir, "trace.json"), JSON.stringify({ ...body, dimension: r.dimension }, null, 2));
  writeFile(
    join(dir, "llm-logs", `${r.goalId}_planner_llm_log.jsonl`),
    logText([logEntry({ call: 1, role: "planner", goal_id: r.goalId, timestamp: iso(3), duration_seconds: 3, response: plan })]),
  );
  if (r.critic === null) return 1;
  const response = critique(r.critic === "adversarial" ? "blocker" : "warning");
  writeFile(
    join(dir, "llm-logs", `${r.goalId}_critic_llm_log.jsonl`),
    logText([logEntry({ call: 1, role: "critic", goal_id: r.goalId, timestamp: iso(5), duration_seconds: 2, response, system: CRITIC_PROMPTS[r.critic] })]),
  );
  return 2;
}

/** Goals of the generated tree, written in the predecessor corpus layout. */
export function writeTreeGoals(goalsDir: string, goals: { id: string; risk: "strict" | "balanced"; approve: boolean }[]): void {
  for (const g of goals) {
    writeFile(join(goalsDir, "database", `${g.id}.json`), JSON.stringify(treeGoal(g.id, g.risk), null, 2));
    writeFile(join(goalsDir, "database", "assertions", `${g.id}.yaml`), `invariants:\n  approve_expected: ${g.approve}\n  min_tasks: 2\n`);
  }
}

/** A sweep's report.json with its loop configuration. */
export function writeSweepReport(sweepDir: string, mode: string, cap: number): void {
  writeFile(
    join(sweepDir, "report.json"),
    JSON.stringify({ meta: { date: "2026-08-20", config: "plancritic.toml", loop_config: { mode, revision_cap: cap } }, total: 0, passed: 0, failed: 0 }),
  );
}
