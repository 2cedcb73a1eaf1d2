import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../harness/package.ts";
import { shardFromEnv } from "../../harness/run/shard-env.ts";

const read = (path: string) => readFileSync(join(PACKAGE_ROOT, path), "utf8");

interface Step {
  run?: string;
  shell?: string;
  uses?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}

describe("sharded sweeps on GitHub Actions (.github/workflows/sweep.yml)", () => {
  const workflow = parse(read(".github/workflows/sweep.yml")) as {
    jobs: Record<string, { strategy?: { matrix: { shard: number[] } }; env?: Record<string, string>; needs?: string; steps: Step[] }>;
  };
  const { shard, merge } = workflow.jobs as Record<"shard" | "merge", (typeof workflow.jobs)[string]>;

  it("runs one job per shard with --shard auto, its index and count from the matrix, and keeps each as an artifact", () => {
    expect(shard!.strategy!.matrix.shard).toEqual(Array.from({ length: shard!.strategy!.matrix.shard.length }, (_, i) => i + 1));
    expect(shard!.env).toMatchObject({ FIELDTEST_SHARD_INDEX: "${{ matrix.shard }}", FIELDTEST_SHARD_COUNT: "${{ strategy.job-total }}" });
    expect(shard!.steps.map((s) => s.run ?? s.uses)).toEqual(
      expect.arrayContaining(["npm ci", expect.stringMatching(/^npx --no-install fieldtest run --shard auto --out /)]),
    );
    expect(shard!.steps.find((s) => s.uses?.startsWith("actions/upload-artifact"))!.with!.name).toBe("shard-${{ matrix.shard }}");
    // what the matrix sets is what --shard auto reads: shard 3 of the 4 is 3/4
    expect(shardFromEnv({ FIELDTEST_SHARD_INDEX: "3", FIELDTEST_SHARD_COUNT: String(shard!.strategy!.matrix.shard.length) })).toBe("3/4");
  });

  it("merges every shard after all of them, then gates the merged run", () => {
    expect(merge!.needs).toBe("shard");
    const runs = merge!.steps.map((s) => s.run ?? "");
    const mergeAt = runs.findIndex((r) => r.startsWith("npx --no-install fieldtest merge shards/shard-* --out runs/merged"));
    const gateAt = runs.findIndex((r) => r.startsWith("npx --no-install fieldtest gate runs/merged --baseline"));
    expect(mergeAt).toBeGreaterThan(-1);
    expect(gateAt).toBeGreaterThan(mergeAt);
    // The step's exit is the gate's: bash (-eo pipefail) through the tee, not the default shell's tee exit.
    const gate = merge!.steps[gateAt]!;
    expect(gate.shell).toBe("bash");
    expect(gate.run).toContain('--policy "$POLICY"');
    // The default sweep is the sim, so the default policy is the sim-calibrated one (gate.yaml fails the sim by design).
    expect(merge!.env).toMatchObject({ POLICY: "${{ github.event.inputs.policy || 'gate.sim.yaml' }}" });
    expect(merge!.steps.find((s) => s.uses?.startsWith("actions/download-artifact"))!.with).toMatchObject({ pattern: "shard-*", path: "shards" });
  });
});

describe("sharded sweeps on Kubernetes (k8s/)", () => {
  type Container = { command: string[]; args: string[]; env: { name: string; value?: string }[] };
  const docs = parseAllDocuments(read("k8s/sweep-shards.yaml")).map((d) => d.toJS() as { kind: string; spec: Record<string, unknown> });
  const job = docs.find((d) => d.kind === "Job")!;
  const container = (job.spec.template as { spec: { containers: Container[] } }).spec.containers[0]!;
  const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]));

  it("is an Indexed Job whose FIELDTEST_SHARD_COUNT is its completions, every pod running --shard auto", () => {
    expect(job.spec).toMatchObject({ completionMode: "Indexed" });
    expect(Number(env.FIELDTEST_SHARD_COUNT)).toBe(job.spec.completions);
    expect(container.args.join("\n")).toContain("fieldtest run --shard auto --out");
    // the last pod's index, as Kubernetes sets it, is the last shard
    expect(shardFromEnv({ JOB_COMPLETION_INDEX: String(Number(job.spec.completions) - 1), FIELDTEST_SHARD_COUNT: env.FIELDTEST_SHARD_COUNT })).toBe(
      `${job.spec.completions}/${job.spec.completions}`,
    );
  });

  it("a retried pod resumes its shard, taking the dead pod's lock, and is only ever started once that pod has terminated", () => {
    // The lock names the dead pod's hostname, which the new pod cannot check: without --break-lock every retry is refused.
    expect(container.args.join("\n")).toContain('fieldtest run --resume "$out" --break-lock');
    expect(job.spec).toMatchObject({ podReplacementPolicy: "Failed" });
  });

  it("merges and gates from the same volume and run name", () => {
    const merge = parse(read("k8s/sweep-merge.yaml")) as { spec: { template: { spec: { containers: Container[] } } } };
    const m = merge.spec.template.spec.containers[0]!;
    expect(Object.fromEntries(m.env.map((e) => [e.name, e.value])).RUN_NAME).toBe(env.RUN_NAME);
    expect(m.args.join("\n")).toMatch(
      /fieldtest merge \/runs\/\$RUN_NAME\/shard-\* --out \/runs\/\$RUN_NAME\/merged\n.*fieldtest gate \/runs\/\$RUN_NAME\/merged/,
    );
    expect(m.args.join("\n")).toContain('--policy "$POLICY"');
    expect(Object.fromEntries(m.env.map((e) => [e.name, e.value])).POLICY).toBe("gate.sim.yaml");
  });

  it("passes both vendors' keys to the shards, each optional", () => {
    expect(
      container.env
        .filter((e) => /_API_KEY$/.test(e.name))
        .map((e) => e.name)
        .sort(),
    ).toEqual(["ANTHROPIC_API_KEY", "OPENAI_API_KEY"]);
  });
});
