import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configDifferences } from "../../harness/baseline/compat.ts";
import { snapshotOfRun } from "../../harness/baseline/io.ts";
import { loadConfigFile } from "../../harness/config.ts";
import { loadCorpus } from "../../harness/corpus/load.ts";
import { readManifest } from "../../harness/run/manifest.ts";
import { resolveRun } from "../../harness/run/settings.ts";
import { readTrialLog } from "../../harness/run/store.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { realEngine } from "../../harness/assembly.ts";
import { trialKey, type TrialRecord } from "../../src/formats/records.ts";
import { DEFAULT_SIM_PROFILE } from "../../src/sim/profile.ts";
import { chatCompletion, startFakeServer } from "../providers/fake-server.ts";
import { cli, tempDir, testHost } from "./helpers.ts";

/** Two real corpus goals and one boundary fixture, through the real engine on the sim provider; a third goal the source never ran. */
const corpus = loadCorpus("corpus");
const [goalA, goalB, extraGoal] = corpus.goals.slice(0, 3).map((g) => g.goal.id);
const fixture = corpus.fixtures[0]!.fixture.id;
const only = [goalA, goalB, fixture].join(",");
const base = { only, trials: "2", seed: "3" };

const records = (dir: string) => new Map(readTrialLog(dir, (r) => r).records.map((r) => [trialKey(r), r]));
const outcome = (r: TrialRecord) => ({
  status: r.status,
  verdict: r.verdict,
  critic_verdict: r.critic_verdict,
  reasons: r.escalation_reasons,
  critic_texts: r.calls.filter((c) => c.role === "critic").map((c) => c.raw_text),
  requests: r.calls.map((c) => c.request_sha256),
});

let root: string;
let source: string;

beforeAll(async () => {
  root = tempDir("ft-replay-");
  source = join(root, "source");
  expect(await runSweep(cli({ ...base, out: source }), {}, realEngine({}), testHost())).toBe(0);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("fieldtest run --replay DIR", () => {
  it("replays a sim sweep trial by trial without calling a provider, and records what it replayed", async () => {
    const out = join(root, "replay");
    expect(await runSweep(cli({ ...base, replay: source, out }), {}, realEngine({}), testHost())).toBe(0);

    const before = records(source);
    const after = records(out);
    expect(before.size).toBe(6);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [key, rec] of before) {
      const replayed = after.get(key)!;
      expect(outcome(replayed), key).toEqual(outcome(rec));
      expect(replayed.calls.length, key).toBeGreaterThan(0);
      expect(
        replayed.calls.every((c) => c.cached && c.transport_attempts.length === 0),
        key,
      ).toBe(true);
      expect(
        rec.calls.every((c) => !c.cached),
        key,
      ).toBe(true);
    }

    // The comparison covers critic answers of both suites (full-loop goals and critic-only fixtures).
    const critics = [...before.values()].filter((r) => r.calls.some((c) => c.role === "critic" && c.raw_text !== null));
    expect(new Set(critics.map((r) => r.suite))).toEqual(new Set(["corpus", "boundary"]));

    const src = readManifest(source);
    const m = readManifest(out);
    expect(m.totals.calls).toBe(0);
    expect(m.sessions.at(-1)!.spend!.calls).toBe(0);
    expect(m.spend!.calls).toBe(0);
    expect(m.config.replayOf).toEqual({ runDir: source, runId: src.run_id, configHash: src.config_hash });
    expect(src.config).not.toHaveProperty("replayOf");
    for (const role of ["planner", "critic"] as const) {
      expect(m.config.client[role]).toMatchObject({
        provider: "replay",
        model: src.roles[role].model,
        replay: { runDir: source, as: "sim", fallThrough: false },
      });
      expect(m.roles[role].provider).toBe("replay");
    }
    expect(m.config_hash).not.toBe(src.config_hash);

    // diff's attribution sees the provider change on both roles.
    const diffs = configDifferences(snapshotOfRun(source, "corpus"), snapshotOfRun(out, "corpus"));
    expect(
      diffs
        .filter((d) => d.kind === "provider")
        .map((d) => d.part)
        .sort(),
    ).toEqual(["critic.provider", "planner.provider"]);
  });

  it("reads a source it cannot use as bad input before --out is made: no half-made run folder is left", async () => {
    const broken = join(root, "broken-source");
    cpSync(source, broken, { recursive: true });
    const lines = readFileSync(join(broken, "trials.jsonl"), "utf8").split("\n");
    lines[1] = lines[1]!.slice(0, 40);
    writeFileSync(join(broken, "trials.jsonl"), lines.join("\n"));
    const out = join(root, "from-broken");
    await expect(runSweep(cli({ ...base, replay: broken, out }), {}, realEngine({}), testHost())).rejects.toThrow(/trials\.jsonl:2: not valid JSON/);
    expect(existsSync(out)).toBe(false);
  });

  it("fails the trials of an item the source never ran with a one-line miss naming role, item and trial", async () => {
    const out = join(root, "miss");
    const host = testHost();
    expect(await runSweep(cli({ ...base, only: `${only},${extraGoal}`, replay: source, out }), {}, realEngine({}), host)).toBe(0);
    const after = records(out);
    for (const trial of [0, 1]) {
      const miss = after.get(trialKey({ suite: "corpus", item_id: extraGoal!, trial }))!;
      expect(miss.status).toBe("error");
      expect(miss.calls).toEqual([]);
      expect(miss.error).toMatch(
        new RegExp(`^replay miss: the run .* has no recorded planner call for ${extraGoal} trial ${trial} \\(request [0-9a-f]{12}\\)`),
      );
      expect(miss.error).not.toContain("\n");
    }
    const others = [...after.values()].filter((r) => r.item_id !== extraGoal);
    expect(others).toHaveLength(6);
    expect(others.every((r) => r.status !== "error" && r.calls.every((c) => c.cached))).toBe(true);
    expect(readManifest(out).totals.errors).toBe(2);
  });

  it("with --replay-fall-through, runs a miss on the live provider and replays the rest", async () => {
    const out = join(root, "fall-through");
    expect(await runSweep(cli({ ...base, only: `${only},${extraGoal}`, replay: source, replayFallThrough: true, out }), {}, realEngine({}), testHost())).toBe(
      0,
    );
    const after = records(out);
    expect([...after.values()].every((r) => r.status !== "error")).toBe(true);
    const extra = [...after.values()].filter((r) => r.item_id === extraGoal);
    expect(extra).toHaveLength(2);
    expect(extra.every((r) => r.calls.length > 0 && r.calls.every((c) => !c.cached && c.transport_attempts.length > 0))).toBe(true);
    expect([...after.values()].filter((r) => r.item_id !== extraGoal).every((r) => r.calls.every((c) => c.cached))).toBe(true);
    expect(readManifest(out).config.client.critic.replay?.fallThrough).toBe(true);
  });

  it("refuses flags that contradict a replay, and leaves a run without --replay as it was", () => {
    const ctx = { loadProfile: () => DEFAULT_SIM_PROFILE, readReplaySource: readManifest };
    expect(() => resolveRun({}, cli({ replay: source, provider: "openai", model: "gpt-4o-mini" }), ctx)).toThrow(
      /--provider: cannot be combined with --replay/,
    );
    expect(() => resolveRun({}, cli({ replay: source, criticModel: "x" }), ctx)).toThrow(/--critic-model: cannot be combined with --replay/);
    expect(() => resolveRun({}, cli({ replayFallThrough: true }), ctx)).toThrow(/--replay-fall-through: needs --replay DIR/);
    expect(() => resolveRun({}, cli({ provider: "replay", model: "m" }), ctx)).toThrow(/--replay DIR/);
    expect(() => resolveRun({}, cli({ replay: join(root, "nowhere") }), ctx)).toThrow(/nowhere: no such run folder$/);
    expect(resolveRun({}, cli({}), ctx).config).not.toHaveProperty("replayOf");
  });

  it("takes the config file's replay: key like the flag, and the flag wins", () => {
    const ctx = { loadProfile: () => DEFAULT_SIM_PROFILE, readReplaySource: readManifest };
    const file = join(root, "replay.config.yaml");
    writeFileSync(file, `replay: { runDir: ${JSON.stringify(source)}, fallThrough: true }\n`);
    const fromFile = resolveRun(loadConfigFile(file), cli({}), ctx).config;
    expect(fromFile.client.planner).toMatchObject({ provider: "replay", replay: { runDir: source, as: "sim", fallThrough: true } });
    const fromFlag = resolveRun(loadConfigFile(file), cli({ replay: source, replayFallThrough: false }), ctx).config;
    expect(fromFlag.client.planner.replay?.fallThrough).toBe(false);
  });

  it("replays a run made against a server of its own at that endpoint: every call answered from the records", async () => {
    const server = await startFakeServer([{ status: 200, body: chatCompletion(JSON.stringify({ findings: [] })) }]);
    try {
      const live = join(root, "live");
      const sweep = { suite: "boundary", only: fixture, trials: "2", provider: "openai", model: "gpt-4o-mini", baseUrl: `${server.url}/v1` };
      expect(await runSweep(cli({ ...sweep, out: live }), {}, realEngine({}), testHost())).toBe(0);
      const sent = server.received.length;
      const out = join(root, "live-replay");
      expect(await runSweep(cli({ suite: "boundary", only: fixture, trials: "2", replay: live, out }), {}, realEngine({}), testHost())).toBe(0);
      expect(server.received).toHaveLength(sent);
      expect([...records(out).values()].every((r) => r.status !== "error" && r.calls.every((c) => c.cached))).toBe(true);
      expect(readManifest(out).config.client.critic.baseUrl).toBe(`${server.url}/v1`);
    } finally {
      await server.close();
    }
  });

  it("cannot change what a resumed run replays", async () => {
    await expect(runSweep(cli({ resume: source, replay: source }), {}, realEngine({}), testHost())).rejects.toThrow(
      /--replay: cannot be combined with --resume/,
    );
  });
});
