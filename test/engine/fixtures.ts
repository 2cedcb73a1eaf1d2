import type { z } from "zod";
import type { GoalSchema } from "../../src/formats/goal.ts";
import type { Plan } from "../../src/formats/plan.ts";
import { hard, makeGoal, makePlan, mutate, notify, read, verify } from "../helpers/plans.ts";
import { answer, type ScriptedAnswer } from "./scripted-client.ts";

/** Plans and critic answers shared by the engine tests. Every plan here goes through PlanSchema. */

export const goal = (overrides: Partial<z.input<typeof GoalSchema>> = {}) => makeGoal(["window_booked"], overrides);

/** A high-risk migration with snapshot, credible rollback and output check: every gate passes. */
const snapshot = read("snapshot", {
  preconditions: [{ fact: "window_booked", established_by: "env" }],
  establishes: ["snapshot_taken"],
  produces: ["db.snapshot"],
});
const migrate = (fields: Parameters<typeof mutate>[1] = {}) =>
  mutate("migrate", {
    risk: "high",
    mutates: ["db"],
    produces: ["db.report"],
    preconditions: [{ fact: "snapshot_taken", established_by: "snapshot" }],
    rollback: { trigger: "verify_migrate", action: "Restore db from the snapshot", requires: ["snapshot_taken"], restores: ["db"] },
    ...fields,
  });
const verifyMigrate = verify("verify_migrate", "migrate", "mutation_output", ["db.report"]);
const deps = [hard("snapshot", "migrate"), hard("migrate", "verify_migrate")];

/**
 * Two medium-risk mutations without rollback or verification: no gate asks for either below high
 * blast, so only a critic can object, and its `missing_rollback` / `missing_verification` claims
 * on them are supported.
 */
const tuneCache = mutate("tune_cache", { mutates: ["cache"] });
const rotateLogs = (risk: "medium" | "low" = "medium") => mutate("rotate_logs", { mutates: ["logs"], risk });

export const SOUND = makePlan([snapshot, migrate(), verifyMigrate], deps);
/** SOUND with prose edited only: the same structural content. */
export const SOUND_REWORDED = makePlan([{ ...snapshot, description: "Back up first" }, migrate(), verifyMigrate], deps);
/** Gate defect: the high-risk migration has no rollback (rollback_missing). */
export const NO_ROLLBACK = makePlan([snapshot, migrate({ rollback: null }), verifyMigrate], deps);
/** Gate defect: the output check is missing (verification_missing; the rollback trigger is gone too). */
export const NO_CHECK = makePlan([snapshot, migrate({ rollback: null, risk: "medium", reversibility: "irreversible" })], [deps[0]!]);
/** NO_ROLLBACK again, plus a notification: the rollback_missing key is back in a new structure. */
export const NO_ROLLBACK_NOTIFIED = makePlan([snapshot, migrate({ rollback: null }), verifyMigrate, notify("announce")], deps);

/** Gate-clean plans that differ only in what a critic could object to. */
export const WITH_CACHE = makePlan([snapshot, migrate(), verifyMigrate, tuneCache, rotateLogs()], deps);
export const WITH_CACHE_LOW_LOGS = makePlan([snapshot, migrate(), verifyMigrate, tuneCache, rotateLogs("low")], deps);
export const WITHOUT_CACHE = makePlan([snapshot, migrate(), verifyMigrate, rotateLogs()], deps);

/** The planner's answer: a plan as JSON. */
export const planAnswer = (plan: Plan): ScriptedAnswer => answer({ tasks: plan.tasks, dependencies: plan.dependencies });

export interface FindingInput {
  family?: string;
  severity?: string;
  task_id?: string | null;
  message?: string;
  suggested_fix?: string;
  evidence?: { claim: string; tasks: string[]; facts: string[] } | null;
}

export function criticFinding(f: FindingInput = {}) {
  return {
    family: "weak_rollback",
    severity: "blocker",
    task_id: null,
    message: "a problem",
    suggested_fix: "fix it",
    evidence: { claim: "other", tasks: [], facts: [] },
    ...f,
  };
}

export const criticAnswer = (...findings: FindingInput[]): ScriptedAnswer => answer({ findings: findings.map(criticFinding) });
export const CLEAN_AUDIT = criticAnswer();

/** Supported blockers on the gate-clean plans above. */
export const NO_ROLLBACK_ON_CACHE: FindingInput = {
  family: "weak_rollback",
  task_id: "tune_cache",
  evidence: { claim: "missing_rollback", tasks: ["tune_cache"], facts: [] },
};
export const NO_CHECK_ON_LOGS: FindingInput = {
  family: "unverified_dependencies",
  task_id: "rotate_logs",
  evidence: { claim: "missing_verification", tasks: ["rotate_logs"], facts: [] },
};
