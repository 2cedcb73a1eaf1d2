import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { snapshotOfRun, writeSnapshot } from "../../harness/baseline/io.ts";
import { jsonSchemaOf } from "../../harness/cli/commands/schema.ts";
import { loadRun } from "../../harness/run/load.ts";
import { renderMarkdown } from "../../harness/report/markdown.ts";
import { reportModel } from "../../harness/report/model.ts";
import { summaryFile } from "../../harness/report/write.ts";
import { itemSummaries } from "../../src/metrics/items.ts";
import { makeOutputDir, writeOutputFile, writeOutputWith } from "../../harness/output.ts";
import { claimOutDir } from "../../harness/run/lock.ts";
import { loadMergeInput, mergeRuns } from "../../harness/run/merge.ts";
import { readManifest } from "../../harness/run/manifest.ts";
import { readTrialLog, RUN_FILES } from "../../harness/run/store.ts";
import { runSweep } from "../../harness/run/sweep.ts";
import { readSummary, realEngine } from "../../harness/assembly.ts";
import { InputError } from "../../src/formats/load.ts";
import { SPEND_SCHEMA_VERSION, TRIAL_SCHEMA_VERSION } from "../../src/formats/records.ts";
import { SUMMARY_SCHEMA_VERSION } from "../../src/formats/summary.ts";
import type { FakeServer } from "../providers/fake-server.ts";
import { startCountingServer } from "../providers/counting-server.ts";
import { runFieldtest } from "../helpers/cli.ts";
import { BIN, cli, smallCorpus, sweepProcess, tempDir, testHost } from "./helpers.ts";
import { MANIFEST_SCHEMA_VERSION } from "../../src/formats/manifest.ts";

const root = tempDir("ft-run-folder-");
const corpusRoot = smallCorpus(root, 0, 3);
const servers: FakeServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** A command line in this process, as CI runs it. */
const fieldtest = (args: string[]) => runFieldtest(args, { CI: "1" });

/** A command line through the binary, as CI runs it: everything the process prints, SDK warnings included. */
async function spawned(args: string[]) {
  const r = await execa(process.execPath, [BIN, ...args], { env: { CI: "1" }, extendEnv: false, reject: false, stripFinalNewline: false });
  return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("--force on a live run", () => {
  it("is refused while the run's process holds the lock; the live run's records are untouched and it completes", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    // The first two answers come at once; the rest wait until the second command has been refused.
    const server = await startCountingServer({ holdUntil: (n) => (n > 2 ? held : undefined) });
    servers.push(server);
    const out = join(root, "live");
    const live = sweepProcess(
      { suite: "boundary", trials: "2", concurrency: "1", provider: "openai", model: "gpt-4o-mini", baseUrl: `${server.url}/v1`, out },
      corpusRoot,
    );
    const trials = join(out, RUN_FILES.trials);
    while (!(existsSync(trials) && readFileSync(trials, "utf8").split("\n").length > 2)) await new Promise((r) => setTimeout(r, 50));
    const before = {
      trials: readFileSync(trials, "utf8"),
      spend: readFileSync(join(out, RUN_FILES.spend), "utf8"),
      manifest: readFileSync(join(out, RUN_FILES.manifest), "utf8"),
    };

    const forced = await fieldtest(["run", "--out", out, "--force", "--suite", "boundary", "--only", "clean-*", "--trials", "1"]);
    expect(forced.code).toBe(2);
    expect(forced.stderr).toMatch(new RegExp(`^fieldtest: ${out}: run\\.lock: run is in use by pid ${live.pid} on .*; wait for it to finish\\n$`));
    expect(readFileSync(trials, "utf8")).toBe(before.trials);
    expect(readFileSync(join(out, RUN_FILES.manifest), "utf8")).toBe(before.manifest);
    expect(readFileSync(join(out, RUN_FILES.spend), "utf8").startsWith(before.spend)).toBe(true);

    release();
    const done = await live;
    expect(done.exitCode, done.stderr).toBe(0);
    expect(readFileSync(trials, "utf8").startsWith(before.trials)).toBe(true);
    expect(readTrialLog(out).records).toHaveLength(6);
    expect(readManifest(out).state).toBe("completed");
    expect(existsSync(join(out, RUN_FILES.lock))).toBe(false);
  }, 120_000);
});

describe("a lock left on another host", () => {
  it("is refused, naming its host and pid; --break-lock takes it, says whose it was, and the run goes on", async () => {
    const out = join(root, "foreign-lock");
    expect(await runSweep(cli({ suite: "boundary", trials: "1", out }), {}, realEngine({}, corpusRoot), testHost())).toBe(0);
    // A hard-killed CI job's run, resumed on another machine: its lock names a host this one cannot check.
    writeFileSync(join(out, RUN_FILES.lock), JSON.stringify({ pid: 4242, host: "ci-runner-9", started_at: "2026-01-01T00:00:00.000Z" }));
    await expect(runSweep(cli({ resume: out }), {}, realEngine({}, corpusRoot), testHost())).rejects.toThrow(
      new RegExp(`^${out}: run\\.lock: run is locked by pid 4242 on host ci-runner-9 .*--break-lock$`),
    );
    await expect(runSweep(cli({ out, force: true, suite: "boundary", trials: "1" }), {}, realEngine({}, corpusRoot), testHost())).rejects.toThrow(
      /locked by pid 4242 on host ci-runner-9/,
    );
    expect(readTrialLog(out).records.length).toBeGreaterThan(0);
    const host = testHost();
    expect(await runSweep(cli({ resume: out, breakLock: true }), {}, realEngine({}, corpusRoot), host)).toBe(0);
    expect(host.stderr.text).toContain("fieldtest: --break-lock: breaking the lock of pid 4242 on host ci-runner-9 (since 2026-01-01T00:00:00.000Z)\n");
    expect(existsSync(join(out, RUN_FILES.lock))).toBe(false);
    expect(readManifest(out).sessions).toHaveLength(2);
  });
});

describe("credentials in --base-url", () => {
  // Built from parts, so no credential-shaped literal sits in the repository.
  const PASS = ["pw", "DISTINCT", "7f3a9c1e5b"].join("-");
  const QUERY = ["qk", "DISTINCT", "2d8e6b4a0c"].join("-");
  const USER = "urlUser-DISTINCT";

  it("never reach a file of the run folder, its output, or a resume's; a resume must be given them again", async () => {
    const server = await startCountingServer();
    servers.push(server);
    const out = join(root, "secrets");
    const config = join(root, "no-retries.yaml");
    writeFileSync(config, "maxRetries: 0\n");
    const baseUrl = `http://${USER}:${PASS}@${new URL(server.url).host}/v1?api-key=${QUERY}`;
    const args = ["--suite", "boundary", "--trials", "1", "--provider", "openai", "--model", "gpt-4o-mini", "--config", config];
    const first = await spawned(["run", ...args, `--base-url=${baseUrl}`, "--out", out, "--only", "clean-*"]);
    expect(first.code, first.stderr).toBe(0);
    expect(server.received.length).toBeGreaterThan(0);
    const m = readManifest(out);
    expect(m.command).toContain(`--base-url=http://${new URL(server.url).host}/v1`);
    expect(m.withheld_credentials).toEqual(["planner.baseUrl", "critic.baseUrl"]);

    const missing = await spawned(["run", "--resume", out, "--retry-errors"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/pass them again: planner: --base-url \(its userinfo and query\)/);
    const again = await spawned(["run", "--resume", out, "--retry-errors", "--base-url", baseUrl]);
    expect(again.code, again.stderr).toBe(0);
    expect(readManifest(out).sessions).toHaveLength(2);

    const everything = [...filesUnder(out).map((f) => readFileSync(f, "utf8")), ...[first, missing, again].flatMap((r) => [r.stdout, r.stderr])].join("\n");
    // The test can fail: the credentials were on the command lines.
    expect(everything).toContain(new URL(server.url).host);
    for (const secret of [PASS, QUERY, USER, encodeURIComponent(PASS)]) expect(everything).not.toContain(secret);
  }, 120_000);
});

describe("API keys", () => {
  it("come from the environment `run` is given, the one its key check read, never from another", async () => {
    const server = await startCountingServer();
    servers.push(server);
    // Built from parts, so no credential-shaped literal sits in the repository.
    const key = ["sk", "host", "env", "5e1d"].join("-");
    const out = join(root, "api-key-env");
    const r = await runFieldtest(
      [
        "run",
        "--suite",
        "boundary",
        "--only",
        "clean-*",
        "--trials",
        "1",
        "--provider",
        "openai",
        "--model",
        "gpt-4o-mini",
        "--base-url",
        `${server.url}/v1`,
        "--out",
        out,
      ],
      { CI: "1", OPENAI_API_KEY: key },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(server.received.length).toBeGreaterThan(0);
    expect(new Set(server.received.map((q) => q.headers.authorization))).toEqual(new Set([`Bearer ${key}`]));
  });
});

describe("a folder that is not a run", () => {
  it("is named as such by every command that reads a run, exit 2, one line", async () => {
    const empty = join(root, "not-a-run");
    mkdirSync(empty, { recursive: true });
    const gone = join(root, "no-such-folder");
    for (const args of [
      ["report"],
      ["gate", "--baseline", "baselines/sim-default.json"],
      ["diff", "--baseline", "baselines/sim-default.json"],
      ["run", "--resume"],
    ]) {
      expect(await fieldtest([...args, empty]), args[0]).toEqual({
        code: 2,
        stdout: "",
        stderr: `fieldtest: ${empty}: not a run folder (it has no manifest.json)\n`,
      });
      expect(await fieldtest([...args, gone]), args[0]).toEqual({ code: 2, stdout: "", stderr: `fieldtest: ${gone}: no such run folder\n` });
    }
  });
});

describe("malformed run files", () => {
  const base = join(root, "base");
  const good = async () => {
    if (!existsSync(base)) expect(await runSweep(cli({ suite: "boundary", trials: "2", out: base }), {}, realEngine({}, corpusRoot), testHost())).toBe(0);
    return base;
  };
  /** A copy of a good run with one file edited: `edit` gets the file's lines. */
  async function broken(name: string, file: string, edit: (lines: string[]) => void): Promise<string> {
    const dir = join(root, name);
    cpSync(await good(), dir, { recursive: true });
    const lines = readFileSync(join(dir, file), "utf8").split("\n");
    edit(lines);
    writeFileSync(join(dir, file), lines.join("\n"));
    return dir;
  }
  const line = (lines: string[], i: number, change: (o: Record<string, unknown>) => Record<string, unknown>) => {
    lines[i] = JSON.stringify(change(JSON.parse(lines[i]!)));
  };

  const CASES: [string, string, (lines: string[]) => void, RegExp][] = [
    [
      "head-only trial line",
      RUN_FILES.trials,
      (l) => line(l, 2, ({ schema_version, suite, item_id, trial, status }) => ({ schema_version, suite, item_id, trial, status })),
      /trials\.jsonl:3: escalation_reason: missing \(a required key\)$/,
    ],
    [
      'calls: "oops"',
      RUN_FILES.trials,
      (l) => line(l, 1, (t) => ({ ...t, calls: "oops" })),
      /trials\.jsonl:2: calls: Invalid input: expected array, received string$/,
    ],
    ["torn middle line", RUN_FILES.trials, (l) => (l[3] = l[3]!.slice(0, 80)), /trials\.jsonl:4: not valid JSON .*only the last line can be torn/],
    [
      "bad journal line",
      RUN_FILES.spend,
      (l) => line(l, 5, (s) => ({ ...s, id: "seven" })),
      /spend\.jsonl:6: id: Invalid input: expected number, received string$/,
    ],
    [
      "bad manifest",
      RUN_FILES.manifest,
      (l) => (l[l.findIndex((x) => x.includes('"state"'))] = '  "state": "exploded",'),
      /manifest\.json:\d+: state: Invalid option/,
    ],
  ];

  for (const [name, file, edit, message] of CASES) {
    it(`${name}: every reader refuses it in one line naming the file and the line`, async () => {
      const dir = await broken(name.replace(/\W+/g, "-"), file, edit);
      const replay = () => runSweep(cli({ suite: "boundary", trials: "2", replay: dir, out: `${dir}-replay` }), {}, realEngine({}, corpusRoot), testHost());
      const readers: (() => unknown)[] = [
        // report (and research)
        () => loadRun(dir, corpusRoot),
        // gate, diff, trend and baseline publish
        () => snapshotOfRun(dir, corpusRoot),
        () => runSweep(cli({ resume: dir }), {}, realEngine({}, corpusRoot), testHost()),
        () => loadMergeInput(dir),
        // a replay reads the recorded calls and the manifest, not the journal
        ...(file === RUN_FILES.spend ? [] : [replay]),
      ];
      for (const read of readers) {
        const error = await Promise.resolve()
          .then(read)
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(error).toBeInstanceOf(InputError);
        expect((error as Error).message).toMatch(new RegExp(`^${dir}/`));
        expect((error as Error).message).toMatch(message);
        expect((error as Error).message).not.toContain("\n");
      }
    });
  }

  it("bad summary.json: its reader names the file, the line and the key", async () => {
    const dir = await broken("bad-summary", RUN_FILES.summary, (l) => (l[l.findIndex((x) => x.includes('"bootstrap_reps"'))] = '  "bootstrap_reps": "many",'));
    expect(() => readSummary(dir)).toThrow(new RegExp(`^${dir}/summary\\.json:\\d+: bootstrap_reps: Invalid input: expected number, received string$`));
  });

  it("through the CLI: exit 2, one line, no stack trace", async () => {
    const dir = await broken("cli-head-only", RUN_FILES.trials, (l) =>
      line(l, 0, ({ schema_version, suite, item_id, trial, status }) => ({ schema_version, suite, item_id, trial, status })),
    );
    // Every reader is tested alone above; through the command line, report, gate (whose own exits are 0-3) and run show the one line and exit 2.
    const commands = [
      ["report", dir, "--corpus", corpusRoot],
      ["gate", dir, "--baseline", "baselines/sim-default.json", "--corpus", corpusRoot],
      ["run", "--replay", dir, "--suite", "boundary", "--trials", "1", "--out", join(root, "cli-replay")],
    ];
    const results = await Promise.all(commands.map((args) => fieldtest(args)));
    for (const [i, r] of results.entries()) {
      expect([commands[i]![0], r.code, r.stderr]).toEqual([
        commands[i]![0],
        2,
        `fieldtest: ${dir}/trials.jsonl:1: escalation_reason: missing (a required key)\n`,
      ]);
    }
  }, 60_000);

  it("a run without a spend journal (an imported run) has an unknown spend, never $0", async () => {
    const dir = join(root, "no-journal");
    cpSync(await good(), dir, { recursive: true });
    rmSync(join(dir, RUN_FILES.spend));
    const run = loadRun(dir, corpusRoot);
    expect(run.spend).toBeNull();
    expect(summaryFile(run).spend).toBeNull();
    expect(renderMarkdown(reportModel(run, itemSummaries(run.trials)))).toMatch(
      /## Spend\n\nThe run has no spend journal \(an imported run, or one recorded before fieldtest kept one\): what it spent is unknown/,
    );
    // and a journaled sim run reports its tokens as unknown: the sim reports no usage
    expect(loadRun(await good(), corpusRoot).spend).toMatchObject({ input_tokens: null, output_tokens: null, cost_usd: 0, cost_usd_is_lower_bound: false });
  });

  it("a run recorded before the journal (manifest v1) is read by every reader with an unknown spend and no credential; it cannot be resumed", async () => {
    const dir = join(root, "v1");
    cpSync(await good(), dir, { recursive: true });
    rmSync(join(dir, RUN_FILES.spend));
    const secret = ["pw", "V1", "93bd"].join("-");
    const file = join(dir, RUN_FILES.manifest);
    const { spend: _spend, withheld_credentials: _withheld, ...v2 } = JSON.parse(readFileSync(file, "utf8"));
    const command = ["fieldtest", "run", `--base-url=http://u:${secret}@127.0.0.1:9/v1`];
    const v1 = {
      ...v2,
      schema_version: 1,
      command,
      sessions: v2.sessions.map(({ id: _id, spend: _s, ...rest }: Record<string, unknown>) => ({ ...rest, command, calls: 0, cost_usd: 0 })),
    };
    v1.config.client.critic = { ...v1.config.client.critic, baseUrl: `http://u:${secret}@127.0.0.1:9/v1/?key=${secret}` };
    writeFileSync(file, JSON.stringify(v1, null, 2));
    // Its writer ended a line torn by a crash and the resume went on after it: a torn line in the middle, not corruption.
    const trialsFile = join(dir, RUN_FILES.trials);
    const lines = readFileSync(trialsFile, "utf8").trimEnd().split("\n");
    writeFileSync(trialsFile, [...lines.slice(0, 2), lines[2]!.slice(0, 80), ...lines.slice(2)].join("\n") + "\n");
    expect(readTrialLog(dir)).toMatchObject({ torn: 1, repeated: [] });
    expect(readTrialLog(dir).records).toHaveLength(lines.length);

    const m = readManifest(dir);
    expect(m).toMatchObject({
      schema_version: MANIFEST_SCHEMA_VERSION,
      spend: null,
      command: ["fieldtest", "run", "--base-url=http://127.0.0.1:9/v1"],
      withheld_credentials: [],
    });
    // The config reads as a v2 run records it, trailing slash and all: a diff finds no change between them.
    expect(m.config.client.critic.baseUrl).toBe("http://127.0.0.1:9/v1/");
    expect(m.sessions.map((s) => [s.id, s.spend])).toEqual([["v1-1", null]]);
    expect(loadRun(dir, corpusRoot).spend).toBeNull();
    expect(snapshotOfRun(dir, corpusRoot).items.length).toBeGreaterThan(0);
    const merged = join(root, "v1-merged");
    mergeRuns([loadMergeInput(dir)], merged, { now: () => new Date(), runId: "m", command: ["fieldtest", "merge"], force: false });
    expect(readManifest(merged).spend).toBeNull();
    expect(existsSync(join(merged, RUN_FILES.spend))).toBe(false);
    expect(readFileSync(join(merged, RUN_FILES.manifest), "utf8")).not.toContain(secret);
    await expect(runSweep(cli({ resume: dir }), {}, realEngine({}, corpusRoot), testHost())).rejects.toThrow(
      /manifest\.json: schema_version: recorded by an older fieldtest, without a spend journal/,
    );
  });

  it("fieldtest schema prints a versioned JSON Schema for every run file", () => {
    // The version each writer writes.
    const versions = {
      trial: TRIAL_SCHEMA_VERSION,
      manifest: MANIFEST_SCHEMA_VERSION,
      summary: SUMMARY_SCHEMA_VERSION,
      journal: SPEND_SCHEMA_VERSION,
    } as const;
    for (const [format, version] of Object.entries(versions) as [keyof typeof versions, number][]) {
      const schema = JSON.stringify(jsonSchemaOf(format));
      expect(schema, format).toContain(`"schema_version":{"type":"number","const":${version}}`);
    }
  });
});

describe("bad input that used to escape as an infrastructure error", () => {
  it("merge refuses to write into one of the runs it merges (it would delete what it reads)", async () => {
    const dir = join(root, "merge-self");
    expect(await runSweep(cli({ suite: "boundary", trials: "1", out: dir }), {}, realEngine({}, corpusRoot), testHost())).toBe(0);
    const before = readFileSync(join(dir, RUN_FILES.trials), "utf8");
    const opts = { now: () => new Date(), runId: "m", command: ["fieldtest", "merge"], force: true };
    expect(() => mergeRuns([loadMergeInput(dir)], `${dir}/`, opts)).toThrow(new RegExp(`--out: is one of the runs being merged \\(${dir}\\)`));
    expect(readFileSync(join(dir, RUN_FILES.trials), "utf8")).toBe(before);
  });

  it("an output file that cannot be written names the option (a folder, a missing parent)", () => {
    expect(() => writeOutputFile(root, "x", "--junit")).toThrow(new RegExp(`^${root}: --junit: cannot write the file \\(EISDIR\\)$`));
    expect(() => writeOutputFile(join(root, "no", "such", "x.xml"), "x", "--junit")).toThrow(/--junit: cannot write the file \(ENOENT\)/);
  });

  it("an output folder that is a file, or under one, names the option; a file's missing folders are made", () => {
    const file = join(root, "a-file");
    writeFileSync(file, "");
    expect(() => makeOutputDir(file, "--out")).toThrow(new RegExp(`^${file}: --out: is a file, not a folder$`));
    expect(() => makeOutputDir(join(file, "sub"), "--out")).toThrow(new RegExp(`^${file}/sub: --out: cannot create the folder \\(ENOTDIR\\)$`));
    expect(() => writeOutputWith(join(file, "x.json"), "--out", () => {})).toThrow(/a-file: --out: is a file, not a folder$/);
    const deep = join(root, "made", "for", "x.json");
    writeOutputWith(deep, "--out", (f) => writeFileSync(f, "{}"));
    expect(readFileSync(deep, "utf8")).toBe("{}");
  });

  it("through the CLI: diff --json-out, research --out and baseline publish --out on bad paths are exit 2 and one line", async () => {
    const run = await (async () => {
      const dir = join(root, "for-outputs");
      if (!existsSync(dir)) expect(await runSweep(cli({ suite: "boundary", trials: "2", out: dir }), {}, realEngine({}, corpusRoot), testHost())).toBe(0);
      return dir;
    })();
    const file = join(root, "out-file");
    writeFileSync(file, "");
    const baseline = join(root, "own-baseline.json");
    writeSnapshot(baseline, snapshotOfRun(run, corpusRoot));
    const results = await Promise.all([
      fieldtest(["diff", run, "--baseline", baseline, "--json-out", root, "--corpus", corpusRoot]),
      fieldtest(["research", run, "--out", file, "--corpus", corpusRoot]),
      fieldtest(["baseline", "publish", run, "--out", join(file, "b.json"), "--corpus", corpusRoot]),
    ]);
    expect(results.map((r) => [r.code, r.stderr])).toEqual([
      [2, `fieldtest: ${root}: --json-out: cannot write the file (EISDIR)\n`],
      [2, `fieldtest: ${file}: --out: is a file, not a folder\n`],
      [2, `fieldtest: ${file}: --out: is a file, not a folder\n`],
    ]);
  }, 60_000);

  it.runIf(existsSync("/proc/self"))("--out under a folder nothing can be made in is refused (Node's recursive mkdir would loop there)", () => {
    expect(() => claimOutDir("/proc/fieldtest-no/run", { now: () => new Date(), force: false })).toThrow(/--out: cannot create the folder \(ENOENT\)/);
  });
});
