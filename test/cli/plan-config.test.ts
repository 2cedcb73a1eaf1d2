import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runFieldtest } from "../helpers/cli.ts";

/** `fieldtest plan --config FILE`: one goal's engine assembled from the settings `run --config` reads. */

// A goal without its own max_revisions, so the rounds are the settings'.
const GOAL_ID = "apigw-02-api-version-sunset";
const GOAL = `corpus/goals/api-gateway/${GOAL_ID}.yaml`;

interface Call {
  role: string;
  context: { top_p: number | null; seed: number | null; max_tokens: number | null; temperature: number | null };
}

const sampling = (calls: Call[], role: string) =>
  calls.filter((c) => c.role === role).map(({ context: { top_p, seed, max_tokens, temperature } }) => ({ top_p, seed, max_tokens, temperature }));

describe("fieldtest plan --config", () => {
  const dir = mkdtempSync(join(tmpdir(), "ft-plan-config-"));
  const config = join(dir, "fieldtest.config.yaml");
  writeFileSync(
    config,
    [
      `suites: [corpus]`,
      `only: ["${GOAL_ID}"]`,
      `trials: 1`,
      `seed: 3`,
      `mode: every-round`,
      `maxRounds: 2`,
      `roles:`,
      `  planner: { provider: sim, model: sim-planner-1, topP: 0.5, seed: 7, maxTokens: 321 }`,
      `  critic: { provider: sim, model: sim-critic-1, temperature: 0.25 }`,
      "",
    ].join("\n"),
  );

  it("sends the config's sampling settings as a run with that config does, and takes its mode and rounds", async () => {
    const plan = await runFieldtest(["plan", "--goal", GOAL, "--config", config, "--json"]);
    expect([0, 1], plan.stderr).toContain(plan.code);
    const out = JSON.parse(plan.stdout) as { mode: string; max_rounds: number; calls: Call[] };
    expect(out).toMatchObject({ mode: "every-round", max_rounds: 2 });
    expect(sampling(out.calls, "planner")[0]).toEqual({ top_p: 0.5, seed: 7, max_tokens: 321, temperature: null });
    expect(sampling(out.calls, "critic")[0]).toEqual({ top_p: null, seed: null, max_tokens: null, temperature: 0.25 });

    // The same goal in a run with the same config: its trial's calls are the plan's, request for request.
    const runDir = join(dir, "run");
    const run = await runFieldtest(["run", "--config", config, "--out", runDir]);
    expect(run.code, run.stderr).toBe(0);
    const [trial] = readFileSync(join(runDir, "trials.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { calls: (Call & { request_sha256: string })[] });
    const requests = (calls: (Call & { request_sha256?: string })[]) => calls.map((c) => [c.role, c.request_sha256, c.context]);
    expect(requests(out.calls)).toEqual(requests(trial!.calls));
  });

  it("lets a flag given override the file, and without --config keeps the built-in defaults", async () => {
    const flagged = JSON.parse(
      (await runFieldtest(["plan", "--goal", GOAL, "--config", config, "--mode", "gates-first", "--max-rounds", "3", "--json"])).stdout,
    );
    expect(flagged).toMatchObject({ mode: "gates-first", max_rounds: 3 });
    const bare = JSON.parse((await runFieldtest(["plan", "--goal", GOAL, "--json"])).stdout) as { mode: string; max_rounds: number; calls: Call[] };
    expect(bare).toMatchObject({ mode: "gates-first", max_rounds: 4 });
    expect(sampling(bare.calls, "planner")[0]).toEqual({ top_p: null, seed: null, max_tokens: null, temperature: null });
  });

  it("refuses a bad config file with one line naming the file and the key, exit 2", async () => {
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "roles:\n  planner: { topP: 7 }\n");
    const r = await runFieldtest(["plan", "--goal", GOAL, "--config", bad]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(new RegExp(`^fieldtest: ${bad}:2: roles\\.planner\\.topP: .*\\n$`));
  });
});
