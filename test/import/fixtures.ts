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

export interface EntryFields {
  call: number;
  role: "planner" | "critic";
  timestamp: string;
  duration_seconds: number;
  response: unknown;
  goal_id?: string;
}

/** One LoggingProvider entry; an object response is written as the JSON text the model returned. */
export function logEntry(f: EntryFields): Record<string, unknown> {
  const system = f.role === "planner" ? "You are a planner." : "/no_think You are a plan reviewer.";
  return {
    call: f.call,
    goal_id: f.goal_id ?? "hand-01",
    role: f.role,
    model: "openai/gpt-4o-mini",
    timestamp: f.timestamp,
    duration_seconds: f.duration_seconds,
    prompt_messages: [
      { role: "system", content: system, content_len: system.length },
      { role: "user", content: `GOAL: call ${f.call}`, content_len: 12 },
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

export function trace(plan: unknown, result: { status: string; reason_code: string | null; revision_count: number; llm_calls: number }, goalId = "hand-01"): Record<string, unknown> {
  return { dimension: "core-api", goal_id: goalId, duration_seconds: 4.5, result, plan, findings: [], escalation: null, checks: [], error: null, pass: true };
}

/** A reports folder and a goals folder laid out as the predecessor's field test wrote them. */
export function writeFieldTest(root: string, o: { goal: unknown; assertions?: string; trace: unknown; planner: string; critic?: string; goalId?: string }): { reports: string; goals: string } {
  const id = o.goalId ?? "hand-01";
  const reports = join(root, "reports");
  const goals = join(root, "goals");
  const run = join(reports, "batch", id, "core-api", id);
  writeFile(join(goals, `${id}.json`), JSON.stringify(o.goal, null, 2));
  if (o.assertions !== undefined) writeFile(join(goals, `${id}.assertions.yaml`), o.assertions);
  writeFile(join(run, "trace.json"), JSON.stringify(o.trace, null, 2));
  writeFile(join(run, "llm-logs", `${id}_planner_llm_log.jsonl`), o.planner);
  if (o.critic !== undefined) writeFile(join(run, "llm-logs", `${id}_critic_llm_log.jsonl`), o.critic);
  writeFile(join(reports, "batch", id, "report.json"), JSON.stringify({ meta: { date: "2026-08-20", config: "x.toml", loop_config: { mode: "deterministic-first", revision_cap: 4 } } }));
  return { reports, goals };
}

export const HAND_GOAL = {
  id: "hand-01",
  description: "Migrate the orders database behind a backup",
  constraints: { environment: "production", tools: ["psql"] },
  risk_tolerance: "strict",
  replan_policy: "patch",
};
