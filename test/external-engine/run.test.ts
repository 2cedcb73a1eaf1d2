import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { trialKey } from "../../src/formats/records.ts";
import { runFieldtest } from "../helpers/cli.ts";
import { startUpstreamServer, type UpstreamServer } from "../providers/upstream-server.ts";
import { engineDir, served, standInManifest, summaryOf, trialsOf } from "./helpers.ts";

const KEY = "sk-engine-run-secret-abcdefghijklmnop";
const ENV = { OPENAI_API_KEY: KEY };
const GOALS = "db-01*,dns-01*";

let upstream: UpstreamServer;
let failing: UpstreamServer;
beforeAll(async () => {
  upstream = await startUpstreamServer({ plannerMs: 1, criticMs: 1, spread: 0 });
  failing = await startUpstreamServer({ plannerMs: 1, criticMs: 1, spread: 0, criticStatus: 500 });
});
afterAll(async () => {
  await upstream.close();
  await failing.close();
});

/** `fieldtest run --engine MANIFEST` on two corpus goals, served by `server`; returns the run folder and the result. */
async function engineRun(manifest: string, args: string[] = [], server = upstream) {
  const out = join(engineDir(), "run");
  const result = await runFieldtest(["run", "--engine", manifest, ...served(server.url), "--only", GOALS, "--trials", "2", "--out", out, ...args], ENV);
  return { out, ...result };
}

const filesOf = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesOf(join(dir, e.name)) : [join(dir, e.name)]));

describe("fieldtest run --engine (command protocol)", () => {
  let run: Awaited<ReturnType<typeof engineRun>>;
  let servedBefore: number;
  beforeAll(async () => {
    servedBefore = upstream.served();
    run = await engineRun(standInManifest(engineDir()));
  });

  it("puts every trial in one run with verdicts, and every call the server answered once, in its trial and in order", () => {
    expect(run.code).toBe(0);
    const trials = trialsOf(run.out);
    expect(trials.map(trialKey).sort()).toEqual([
      "corpus/db-01-postgres-14-to-16-orders/0",
      "corpus/db-01-postgres-14-to-16-orders/1",
      "corpus/dns-01-route53-to-ns1-migration/0",
      "corpus/dns-01-route53-to-ns1-migration/1",
    ]);
    for (const t of trials) {
      expect(["approved", "escalated"]).toContain(t.status);
      expect(t.engine!.outcome).toBe("ok");
      expect(t.calls.map((c) => c.proxy!.seq)).toEqual(t.calls.map((_, i) => i));
      expect(t.calls[0]!.role).toBe("planner");
      // A planner call after a critic call opens the next round.
      expect(t.calls.map((c) => c.round)).toEqual([...t.calls.map((c) => c.round)].sort((a, b) => a - b));
      expect(t.rounds.length).toBe(new Set(t.calls.map((c) => c.round)).size);
    }
    const calls = trials.flatMap((t) => t.calls);
    expect(calls).toHaveLength(upstream.served() - servedBefore);
    expect(calls.every((c) => c.context.temperature === null && c.context.max_tokens === 2048 && c.proxy!.user_agent === "stand-in-engine/1.0.0")).toBe(true);
  });

  it("records the engine in the manifest and keeps the API key out of every file", () => {
    const manifest = JSON.parse(readFileSync(join(run.out, "manifest.json"), "utf8"));
    expect(manifest.config.engine).toMatchObject({ name: "stand-in", version: "stand-in-engine 1.0.0" });
    expect(manifest.fingerprint.engine).toMatchObject({ name: "stand-in", version: "stand-in-engine 1.0.0" });
    expect(manifest.config.suites).toEqual(["corpus"]);
    for (const file of filesOf(run.out)) expect(readFileSync(file, "utf8")).not.toContain(KEY);
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });

  it("is a run like any other: report, baseline publish, diff and gate read it", async () => {
    expect((await runFieldtest(["report", run.out])).code).toBe(0);
    const baseline = join(engineDir(), "engine-baseline.json");
    expect((await runFieldtest(["baseline", "publish", run.out, "--out", baseline])).code).toBe(0);
    const diff = await runFieldtest(["diff", run.out, "--baseline", baseline, "--json"]);
    expect(diff.code).toBe(0);
    expect(JSON.parse(diff.stdout).unexplained).toEqual([]);
    const gate = await runFieldtest(["gate", run.out, "--baseline", baseline, "--policy", "gate.engine.yaml"]);
    // Two trials per item are fewer than the policy's pre-registered three: inconclusive, never a pass.
    expect(gate.code).toBe(2);
    expect(gate.stdout).toMatch(/ok   floor:fail_open_approval: fail_open_approval 0 ≤ floor 0/);
  });

  it("replays an engine run from its records: the same verdicts, no call sent", async () => {
    const before = upstream.served();
    const out = join(engineDir(), "replayed");
    const replayed = await runFieldtest(
      ["run", "--engine", standInManifest(engineDir()), "--replay", run.out, "--only", GOALS, "--trials", "2", "--out", out],
      ENV,
    );
    expect(replayed.code).toBe(0);
    expect(upstream.served()).toBe(before);
    const verdicts = (dir: string) =>
      Object.fromEntries(trialsOf(dir).map((t) => [trialKey(t), [t.status, t.rounds.length, t.rounds.map((r) => r.structural_hash)]]));
    expect(verdicts(out)).toEqual(verdicts(run.out));
    expect(
      trialsOf(out)
        .flatMap((t) => t.calls)
        .every((c) => c.cached),
    ).toBe(true);
  });

  it("names another engine version as a cause in diff", async () => {
    const dir = engineDir();
    const manifest = standInManifest(dir, { extra: { version: { argv: [process.execPath, "-e", "console.log('stand-in-engine 2.0.0')"] } } });
    const other = await engineRun(manifest);
    const baseline = join(dir, "b.json");
    await runFieldtest(["baseline", "publish", run.out, "--out", baseline]);
    const diff = JSON.parse((await runFieldtest(["diff", other.out, "--baseline", baseline, "--json"])).stdout);
    expect(diff.differences).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: "engine",
          baseline: expect.objectContaining({ version: "stand-in-engine 1.0.0" }),
          candidate: expect.objectContaining({ version: "stand-in-engine 2.0.0" }),
        }),
      ]),
    );
  });
});

describe("fieldtest run --engine, fail closed", () => {
  it("never counts an approval given after a failed critic call: no verdict, and fail_open_approval > 0", async () => {
    const { out, code, stderr } = await engineRun(standInManifest(engineDir(), { modes: ["fail-open"] }), [], failing);
    expect(code).toBe(3);
    expect(stderr).toMatch(/trials are errors/);
    const trials = trialsOf(out);
    expect(trials.every((t) => t.status === "error" && t.engine!.outcome === "provider_error" && t.engine!.reported.status === "approved")).toBe(true);
    const m = summaryOf(out).metrics.fail_open_approval!;
    expect(m.value).toBe(1);
    expect(m.numerator).toBe(4);
  });

  it("counts an engine that escalates when its critic is down as failing closed", async () => {
    const { out } = await engineRun(standInManifest(engineDir()), [], failing);
    expect(trialsOf(out).every((t) => t.status === "error" && t.engine!.reported.status === "escalated")).toBe(true);
    expect(summaryOf(out).metrics.fail_open_approval!.value).toBe(0);
  });

  // The hang waits its timeout out; the others have room to start on a loaded machine before theirs.
  it.each([
    [["crash"], "engine_error", /exited with code 3/, 2],
    [["hang"], "engine_timeout", /no result within 1 s/, 1],
    [["garbage"], "engine_error", /wrote no result/, 2],
    [["report-error"], "engine_error", /it reported an error: the stand-in could not decide/, 2],
  ])("a stand-in that misbehaves (%s) gives trials with no verdict (%s)", async (modes, outcome, error, timeoutS) => {
    const { out, code } = await engineRun(standInManifest(engineDir(), { modes, timeoutS }), ["--only", "db-01*", "--trials", "1"]);
    expect(code).toBe(3);
    const [trial] = trialsOf(out);
    expect(trial!.status).toBe("error");
    expect(trial!.engine!.outcome).toBe(outcome);
    expect(trial!.error).toMatch(error);
  });

  it("masks a per-trial token wherever the engine echoes it", async () => {
    const { out } = await engineRun(standInManifest(engineDir(), { modes: ["leak-token"] }), ["--only", "db-01*", "--trials", "1"]);
    const [trial] = trialsOf(out);
    expect(trial!.engine!.reported.error).toBe("my token is [redacted]");
    expect(trial!.engine!.stderr_tail).toContain("my token is [redacted]");
    for (const file of filesOf(out)) expect(readFileSync(file, "utf8")).not.toMatch(/ft-[0-9a-f]{48}/);
  });

  it("records what the engine sent: a temperature and a seed, a resent request, a wrong token", async () => {
    const { out } = await engineRun(standInManifest(engineDir(), { modes: ["temperature", "resend", "wrong-token"] }), ["--only", "db-01*", "--trials", "1"]);
    const [trial] = trialsOf(out);
    expect(trial!.calls.every((c) => c.context.temperature === 0.7 && c.context.seed === 7)).toBe(true);
    const resent = trial!.calls.filter((c) => c.proxy!.retry_of !== null);
    expect(resent.length).toBeGreaterThan(0);
    expect(resent.every((c) => c.role === "critic" && c.attempt === 1)).toBe(true);
    expect(trial!.engine!.refused_requests).toBe(1);
  });

  it("marks a replay the recorded run cannot answer as replay_miss, never a verdict", async () => {
    const { out: recorded } = await engineRun(standInManifest(engineDir()), ["--only", "db-01*", "--trials", "1"]);
    const out = join(engineDir(), "missed");
    // The engine now sends a temperature: no recorded request matches.
    await runFieldtest(
      ["run", "--engine", standInManifest(engineDir(), { modes: ["temperature"] }), "--replay", recorded, "--only", "db-01*", "--trials", "1", "--out", out],
      ENV,
    );
    const [trial] = trialsOf(out);
    expect(trial!.status).toBe("error");
    expect(trial!.engine!.outcome).toBe("replay_miss");
  });
});

describe("fieldtest run --engine, worker protocol", () => {
  it("starts one engine per slot, not one per trial", async () => {
    const dir = engineDir();
    const starts = join(dir, "starts.log");
    writeFileSync(starts, "");
    const { out, code } = await engineRun(standInManifest(dir, { protocol: "worker", args: ["--start-log", starts] }), ["--concurrency", "2", "--trials", "3"]);
    expect(code).toBe(0);
    expect(trialsOf(out)).toHaveLength(6);
    expect(trialsOf(out).every((t) => t.engine!.outcome === "ok")).toBe(true);
    const started = readFileSync(starts, "utf8").trim().split("\n");
    expect(started.length).toBeGreaterThanOrEqual(1);
    expect(started.length).toBeLessThanOrEqual(2);
  });

  it("restarts a worker that broke the protocol, and gives its trial no verdict", async () => {
    const { out } = await engineRun(standInManifest(engineDir(), { protocol: "worker", modes: ["garbage"] }), ["--concurrency", "1", "--trials", "1"]);
    const trials = trialsOf(out);
    expect(trials).toHaveLength(2);
    for (const t of trials) {
      expect(t.engine!.outcome).toBe("engine_error");
      expect(t.error).toMatch(/broke the protocol/);
    }
  });
});

describe("the example engine (examples/engine)", () => {
  it("runs as its manifest says, in 40 lines", async () => {
    const out = join(engineDir(), "example");
    const result = await runFieldtest(
      ["run", "--engine", "examples/engine/minimal-engine.yaml", ...served(upstream.url), "--only", "db-01*", "--trials", "2", "--out", out],
      { ...ENV, PATH: process.env.PATH },
    );
    expect(result.code).toBe(0);
    const trials = trialsOf(out);
    expect(trials.map((t) => t.engine!.outcome)).toEqual(["ok", "ok"]);
    expect(trials.every((t) => t.rounds.length === 1 && t.rounds[0]!.critic?.outcome === "ok")).toBe(true);
    expect(readFileSync("examples/engine/minimal-engine.mjs", "utf8").trimEnd().split("\n").length).toBeLessThanOrEqual(40);
  });
});

describe("fieldtest run --engine, resume", () => {
  /** A config file whose estimate (half a round a goal) lets a run start under a call limit it then reaches. */
  const lowEstimate = () => {
    const file = join(engineDir(), "fieldtest.config.yaml");
    writeFileSync(file, stringify({ estimate: { roundsPerGoal: 0.5 } }));
    return ["--config", file, "--concurrency", "1"];
  };

  it("completes a run its budget stopped, without repeating a trial or a call it had an answer for", async () => {
    const manifest = standInManifest(engineDir());
    const first = await engineRun(manifest, ["--max-calls", "5", ...lowEstimate()]);
    expect(first.code).toBe(3);
    const done = trialsOf(first.out).length;
    expect(done).toBeLessThan(4);
    const journaled = (dir: string) =>
      readFileSync(join(dir, "calls.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { trial_key: string; call: { request_sha256: string; outcome: string } });
    const before = journaled(first.out);
    const answered = new Set(before.filter((l) => l.call.outcome === "ok").map((l) => `${l.trial_key} ${l.call.request_sha256}`));
    // The budget cut a trial off after some of its calls were answered.
    expect(before.some((l) => !trialsOf(first.out).some((t) => trialKey(t) === l.trial_key))).toBe(true);
    const resumed = await runFieldtest(["run", "--resume", first.out, "--max-calls", "1000"], ENV);
    expect(resumed.code).toBe(0);
    expect(
      journaled(first.out)
        .slice(before.length)
        .filter((l) => answered.has(`${l.trial_key} ${l.call.request_sha256}`)),
    ).toEqual([]);
    const keys = trialsOf(first.out).map(trialKey);
    expect(keys).toHaveLength(4);
    expect(new Set(keys).size).toBe(4);
  });

  it("refuses to resume with an engine manifest that changed", async () => {
    const dir = engineDir();
    const manifest = standInManifest(dir);
    const first = await engineRun(manifest, ["--max-calls", "5", ...lowEstimate()]);
    expect(first.code).toBe(3);
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace("timeout_s: 30", "timeout_s: 31"));
    const resumed = await runFieldtest(["run", "--resume", first.out, "--max-calls", "1000"], ENV);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/differs from the recorded run|changed since the run recorded it/);
  });

  it("refuses a suite an engine cannot run, and sampling fieldtest would not send", async () => {
    const manifest = standInManifest(engineDir());
    const boundary = await runFieldtest(["run", "--engine", manifest, ...served(upstream.url), "--suite", "boundary"], ENV);
    expect(boundary.code).toBe(2);
    expect(boundary.stderr).toMatch(/--suite: an external engine runs corpus goals only/);
    const hot = await runFieldtest(["run", "--engine", manifest, ...served(upstream.url), "--temperature", "0.5"], ENV);
    expect(hot.code).toBe(2);
    expect(hot.stderr).toMatch(/planner\.temperature: stand-in sends its own sampling parameters/);
    writeFileSync(manifest, stringify({ name: "x" }));
    expect((await runFieldtest(["run", "--engine", manifest, ...served(upstream.url)], ENV)).code).toBe(2);
  });
});
