import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLog } from "../../harness/import/planner-critic/logs.ts";
import { importPlannerCritic, IMPORT_FILES, type ImportResult } from "../../harness/import/planner-critic/run.ts";
import { findRecordedRuns } from "../../harness/import/planner-critic/sources.ts";
import { loadRun } from "../../harness/run/load.ts";
import { writeReport } from "../../harness/report/write.ts";
import { readManifest } from "../../harness/run/manifest.ts";
import { readTrials } from "../../harness/run/store.ts";
import { sha256 } from "../../src/canonical.ts";
import { CorpusGoalSchema } from "../../src/formats/goal.ts";
import { InputError, loadFile } from "../../src/formats/load.ts";
import { readSnapshot, snapshotOfRun, writeSnapshot } from "../../harness/baseline/io.ts";
import { loadMergeInput, mergeRuns } from "../../harness/run/merge.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { cli as runCli, fakeCorpus, fakeEngine, testHost } from "../run/helpers.ts";
import { SAMPLE, tempDir, removeTempDirs } from "./fixtures.ts";

/** The three recorded runs of the PlannerCritic 0.1.0 sample, imported as they are. */
describe("importing the PlannerCritic 0.1.0 sample", () => {
  afterAll(removeTempDirs);
  let out: string;
  let result: ImportResult;
  beforeAll(() => {
    out = join(tempDir("sample"), "run");
    result = importPlannerCritic({
      reportsDir: join(SAMPLE, "reports"),
      goalsDir: join(SAMPLE, "goals"),
      out,
      force: false,
      runId: "sample-run",
      command: ["fieldtest", "import", "planner-critic"],
      now: () => new Date("2026-12-02T12:00:00Z"),
    });
  });
  /** The sample's folders, each with its trace. */
  const traces = () => findRecordedRuns(join(SAMPLE, "reports"), []).runs.flatMap((r) => (r.trace === null ? [] : [{ ...r, trace: r.trace }]));
  /** Every imported trial, over the runs. */
  const allTrials = () => result.runs.flatMap((r) => readTrials(r.dir));
  const runDir = (name: string) => result.runs.find((r) => r.name === name)!.dir;

  it("imports each run group as its own run, and every recorded call: none skipped", () => {
    expect(result.runs.map((r) => [r.name, r.trials.length])).toEqual([
      ["critic-fix/core-api", 2],
      ["remain-scenario/core-api", 1],
    ]);
    const logged = readdirSync(join(SAMPLE, "reports"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith("_llm_log.jsonl"))
      .reduce((n, f) => n + (readFileSync(join(SAMPLE, "reports", f), "utf8").match(/^ {2}"call": \d+,$/gm)?.length ?? 0), 0);
    expect(logged).toBe(8);
    expect(result.calls).toEqual({ logged, imported: logged, untraced: 0, untraced_trials: 0, unplaced: 0 });
    expect(allTrials().reduce((n, t) => n + t.calls.length, 0)).toBe(logged);
    expect(result.runs.reduce((n, r) => n + readManifest(r.dir).totals.calls, 0)).toBe(logged);
    expect(result.skipped).toEqual([]);
    const index = JSON.parse(readFileSync(join(out, IMPORT_FILES.report), "utf8"));
    expect(index.calls).toEqual(result.calls);
    expect(index.runs.map((r: { dir: string }) => r.dir)).toEqual(["critic-fix--core-api", "remain-scenario--core-api"]);
  });

  it("gives one trial per trace, with its verdict and its rounds as the trace records them", () => {
    expect(result.problems).toEqual([]);
    const trials = allTrials();
    expect(trials).toHaveLength(3);
    for (const run of traces()) {
      const trial = trials.find((t) => t.item_id === run.trace.goal_id)!;
      expect(trial.suite).toBe("imported");
      expect(trial.status).toBe(run.trace.result.status);
      expect(trial.verdict).toBe(run.trace.result.status === "approved" ? "approve" : "escalate");
      expect(trial.escalation_reason).toBe(run.trace.result.status === "escalated" ? run.trace.result.reason_code : null);
      // The predecessor's revision_count counts rounds (its revisions_used goes up once per round).
      expect(trial.rounds).toHaveLength(run.trace.result.revision_count!);
      expect(trial.rounds.at(-1)!.decision).toBe(run.trace.result.status === "approved" ? "approve" : "escalate");
      expect(trial.latency_ms).toBe(Math.round(run.trace.duration_seconds! * 1000));
    }
  });

  it("keeps every logged call with its latency, role, model, raw response and prompt hashes", () => {
    const trials = allTrials();
    for (const run of traces()) {
      const trial = trials.find((t) => t.item_id === run.trace.goal_id)!;
      const logged = [run.plannerLog!, run.criticLog!].flatMap(
        (f) => parseLog(f, readFileSync(f, "utf8"), f.includes("_planner_") ? "planner" : "critic").entries,
      );
      expect(trial.calls).toHaveLength(logged.length);
      for (const entry of logged) {
        const call = trial.calls.find((c) => c.role === entry.role && c.raw_text === entry.response_content)!;
        expect(call.latency_ms).toBe(Math.round(entry.duration_seconds * 1000));
        expect(call.context.model).toBe("openai/gpt-4o-mini");
        expect(call.context.system_prompt_sha256).toBe(sha256(entry.prompt_messages.find((m) => m.role === "system")!.content));
        expect(call.context.user_prompt_sha256).toBe(sha256(entry.prompt_messages.find((m) => m.role === "user")!.content));
        expect(call.context.temperature).toBeNull();
        expect(call.context.user_template_sha256).toBe("not_recorded");
        expect(call.usage).toBeNull();
        expect(call.cost_usd).toBeNull();
        expect((call as unknown as { not_recorded: string[] }).not_recorded).toEqual(
          expect.arrayContaining(["context.temperature", "context.user_template_sha256", "usage"]),
        );
      }
    }
  });

  it("places the erp run's calls in its two rounds, in the order they happened", () => {
    const erp = allTrials().find((t) => t.item_id === "erp-01-module-adoption")!;
    expect(erp.calls.map((c) => `${c.role}@${c.round}`)).toEqual(["planner@0", "critic@0", "planner@1", "critic@1"]);
    expect(erp.rounds.map((r) => r.plan.id)).toEqual(["plan-erp-01", "plan-erp-01-module-adoption-r2"]);
    expect(erp.rounds.map((r) => r.decision)).toEqual(["revise", "escalate"]);
  });

  it("rescores the critic: the recorded ordering claim that the plan refutes is contradicted and no longer a blocker", () => {
    const erp = allTrials().find((t) => t.item_id === "erp-01-module-adoption")!;
    const claim = erp.rounds[0]!.critic!.findings.find((f) => f.evidence !== null)!;
    expect(claim.evidence).toEqual({ claim: "misordered", tasks: ["cutover", "finance_reconciliation"], facts: [] });
    expect(claim.evidence_status).toBe("contradicted");
    expect(claim.raw.severity).toBe("blocker");
    expect(claim.severity).toBe("warning");
  });

  it("writes run directories the run readers accept, with the critic's system prompt, and the goals in corpus-goal form", () => {
    const manifest = readManifest(runDir("critic-fix/core-api"));
    expect(manifest.totals).toEqual({ recorded: 2, errors: 0, calls: 6, cost_usd: null });
    expect(manifest.config.maxRounds).toBe(4);
    expect(manifest.config.mode).toBe("gates-first");
    expect(manifest.canary?.ok).toBe(true);
    const critic = allTrials()[0]!.calls.find((c) => c.role === "critic")!;
    expect(manifest.roles.critic.prompt).toEqual({ system_sha256: critic.context.system_prompt_sha256, user_template_sha256: null, schema_sha256: null });
    expect(manifest.fingerprint.import).toMatchObject({
      run: "critic-fix/core-api",
      group: "critic-fix",
      dimension: "core-api",
      critique_mode: "deterministic-first",
    });
    const erp = loadFile(join(runDir("critic-fix/core-api"), IMPORT_FILES.goals, "unrecorded", "erp-01-module-adoption.json"), CorpusGoalSchema);
    expect(erp.expect).toMatchObject({
      verdict: "approve",
      min_tasks: 6,
      mandatory_elements: ["verification", "rollback", "reconciliation"],
      escalation_reasons: ["revision_cap_reached"],
    });
    const adv = loadFile(join(runDir("remain-scenario/core-api"), IMPORT_FILES.goals, "unrecorded", "adv-07-prompt-injection.json"), CorpusGoalSchema);
    expect(adv).toMatchObject({
      category: "adversarial",
      risk_tolerance: "strict",
      replan_policy: "abort",
      expect: { verdict: "escalate", escalation_reasons: ["replan_aborted"] },
    });
  });

  it("is reported like any run: the report reads it, and with --corpus DIR judges the imported expectations", () => {
    const dir = runDir("critic-fix/core-api");
    const run = loadRun(dir, dir);
    expect(run.warnings).toEqual([]);
    expect(run.summary.counts.trials).toEqual({ imported: 2 });
    expect(run.summary.expectations.goals.n_items_judged).toBe(2);
    expect(run.summary.operational["llm_calls_per_goal"]!.value).toBeCloseTo(6 / 2);
    expect(writeReport(dir, dir).paths.map((f) => basename(f))).toEqual(expect.arrayContaining(["summary.json", "report.md", "report.html", "trials.csv"]));
    // The router's model name carries its provider: named once, not "openai/openai/gpt-4o-mini".
    for (const [file, critic] of [
      ["report.md", "critic: openai/gpt-4o-mini"],
      ["report.html", "critic openai/gpt-4o-mini"],
    ]) {
      const text = readFileSync(join(dir, file!), "utf8");
      expect(text, file).toContain(critic);
      expect(text, file).not.toContain("openai/openai/");
    }
  });

  it("records suite imported in the manifest, as its trials and plan do", () => {
    for (const r of result.runs) {
      const manifest = readManifest(r.dir);
      expect(manifest.config.suites).toEqual(["imported"]);
      expect(manifest.plan.items.every((key) => key.startsWith("imported/"))).toBe(true);
    }
    expect(new Set(allTrials().map((t) => t.suite))).toEqual(new Set(["imported"]));
  });

  it("is published as a baseline, merges as a whole run, and is refused a resume", async () => {
    const out = runDir("critic-fix/core-api");
    const root = tempDir("sample-readers");
    const baseline = join(root, "imported.json");
    writeSnapshot(baseline, snapshotOfRun(out, out, { name: "imported" }));
    const snapshot = readSnapshot(baseline);
    expect(snapshot).toMatchObject({ total_trials: 2, trials_per_item: 1 });
    expect(snapshot.items.map((i) => i.suite)).toEqual(["imported", "imported"]);

    const merged = join(root, "merged");
    const opts = { now: () => new Date("2026-12-02T13:00:00Z"), runId: "merged", command: ["fieldtest", "merge"], force: false };
    expect(mergeRuns([loadMergeInput(out)], merged, opts).config.suites).toEqual(["imported"]);
    expect(readManifest(merged).merged_from).toEqual([{ dir: out, run_id: "sample-run-01", shard: null }]);
    expect(readTrials(merged)).toEqual(readTrials(out));
    expect(() => mergeRuns([loadMergeInput(out), loadMergeInput(out)], join(root, "twice"), opts)).toThrow(/recorded in more than one run/);

    const host = testHost(["run", "--resume", out]);
    await expect(runSweep(runCli({ resume: out }), {}, fakeEngine(fakeCorpus(1, 0)), host)).rejects.toThrow(/imported run .* cannot be resumed/);
    expect(readTrials(out)).toHaveLength(2);
  });

  it("names a missing folder as bad input", () => {
    expect(() =>
      importPlannerCritic({
        reportsDir: "/nonexistent/reports",
        goalsDir: join(SAMPLE, "goals"),
        out,
        force: false,
        runId: "x",
        command: [],
        now: () => new Date(),
      }),
    ).toThrow(new InputError("/nonexistent/reports", "REPORTS", "not a directory"));
  });

  it("refuses a non-empty --out without --force", () => {
    expect(() =>
      importPlannerCritic({
        reportsDir: join(SAMPLE, "reports"),
        goalsDir: join(SAMPLE, "goals"),
        out,
        force: false,
        runId: "again",
        command: [],
        now: () => new Date(),
      }),
    ).toThrow(/not empty/);
  });
});
