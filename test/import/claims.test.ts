import { describe, expect, it } from "vitest";
import { extractClaim, taskMentions } from "../../harness/import/planner-critic/claims.ts";

const TASKS = ["take_backup", "migrate_db", "cutover", "finance_reconciliation", "cutover_verify"];
const claim = (message: string, taskId: string | null = null) => extractClaim(message, taskId, TASKS)?.evidence ?? null;
const misordered = (a: string, b: string) => ({ claim: "misordered", tasks: [a, b], facts: [] });

describe("prose claim extractor", () => {
  it("finds task names as whole words, with _ written as a space, longest first", () => {
    expect(taskMentions("Cutover verify runs; the finance reconciliation task too; cutover.", TASKS).map((m) => m.id)).toEqual([
      "cutover_verify",
      "finance_reconciliation",
      "cutover",
    ]);
    expect(taskMentions("precutover and migrate_dbs", TASKS)).toEqual([]);
  });

  it("reads 'A … before … B' and 'A must … after … B' as misordered [A, B]", () => {
    expect(claim("migrate_db runs before take_backup.")).toEqual(misordered("migrate_db", "take_backup"));
    expect(claim("Cutover task precedes the finance reconciliation task which is a hard prerequisite.")).toEqual(
      misordered("cutover", "finance_reconciliation"),
    );
    expect(claim("migrate_db should only happen after take_backup has completed.")).toEqual(misordered("migrate_db", "take_backup"));
  });

  it("leaves the readings that name the prerequisite first, describe the plan, or negate, unextracted", () => {
    expect(claim("The task 'finance_reconciliation' must be completed successfully before proceeding to 'cutover'.")).toBeNull();
    expect(claim("migrate_db runs after take_backup.")).toBeNull();
    expect(claim("migrate_db does not run before take_backup.")).toBeNull();
    expect(claim("migrate_db runs before take_backup and after cutover.")).toBeNull();
    expect(claim("cutover is sequenced before ensuring all reconciliations are stable.")).toBeNull();
  });

  it("reads a stated absence of rollback or verification on the one task named, or on task_id", () => {
    expect(claim("migrate_db has no rollback.")).toEqual({ claim: "missing_rollback", tasks: ["migrate_db"], facts: [] });
    expect(claim("This step lacks a verification step.", "cutover")).toEqual({ claim: "missing_verification", tasks: ["cutover"], facts: [] });
    expect(claim("Deployed without any rollback plan", "cutover")).toEqual({ claim: "missing_rollback", tasks: ["cutover"], facts: [] });
  });

  it("does not read a qualified absence, two tasks, or two claims at once", () => {
    expect(claim("The rollback plan lacks verification of the previous schema state.", "cutover")).toBeNull();
    expect(claim("There is no verification established to confirm the reconciliation results.", "cutover")).toBeNull();
    expect(claim("migrate_db and cutover have no rollback.")).toBeNull();
    expect(claim("No rollback; no verification.", "cutover")).toBeNull();
    expect(claim("Something is risky.", "cutover")).toBeNull();
  });
});
