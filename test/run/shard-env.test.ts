import { describe, expect, it } from "vitest";
import { shardFromEnv } from "../../harness/run/shard-env.ts";

const errorOf = (env: Record<string, string>) => {
  try {
    shardFromEnv(env);
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
};

describe("--shard auto", () => {
  it("reads I/N (1-based) from the explicit pair, a Kubernetes Indexed Job, GitLab, CircleCI and Buildkite", () => {
    expect(shardFromEnv({ FIELDTEST_SHARD_INDEX: "2", FIELDTEST_SHARD_COUNT: "4" })).toBe("2/4");
    expect(shardFromEnv({ JOB_COMPLETION_INDEX: "0", FIELDTEST_SHARD_COUNT: "3" })).toBe("1/3");
    expect(shardFromEnv({ JOB_COMPLETION_INDEX: "2", FIELDTEST_SHARD_COUNT: "3" })).toBe("3/3");
    expect(shardFromEnv({ CI_NODE_INDEX: "5", CI_NODE_TOTAL: "5" })).toBe("5/5");
    expect(shardFromEnv({ CIRCLE_NODE_INDEX: "1", CIRCLE_NODE_TOTAL: "2" })).toBe("2/2");
    expect(shardFromEnv({ BUILDKITE_PARALLEL_JOB: "0", BUILDKITE_PARALLEL_JOB_COUNT: "8" })).toBe("1/8");
    // the explicit pair wins over an engine's own variables
    expect(shardFromEnv({ FIELDTEST_SHARD_INDEX: "1", FIELDTEST_SHARD_COUNT: "2", CI_NODE_INDEX: "2", CI_NODE_TOTAL: "2" })).toBe("1/2");
  });

  it("names what is missing or wrong in one line", () => {
    expect(errorOf({})).toMatch(
      /^environment: --shard auto: no shard index in the environment; set one of: FIELDTEST_SHARD_INDEX \+ FIELDTEST_SHARD_COUNT, JOB_COMPLETION_INDEX \(0-based\) \+ FIELDTEST_SHARD_COUNT, /,
    );
    expect(errorOf({ JOB_COMPLETION_INDEX: "1" })).toBe(
      "environment: --shard auto: FIELDTEST_SHARD_COUNT is not set (JOB_COMPLETION_INDEX is: the Kubernetes Indexed Job shard index needs its count)",
    );
    expect(errorOf({ CI_NODE_INDEX: "0", CI_NODE_TOTAL: "2" })).toBe("environment: --shard auto: CI_NODE_INDEX=0: expected a whole number >= 1");
    expect(errorOf({ JOB_COMPLETION_INDEX: "3", FIELDTEST_SHARD_COUNT: "3" })).toBe(
      "environment: --shard auto: JOB_COMPLETION_INDEX=3 is past the last of 3 shards (FIELDTEST_SHARD_COUNT)",
    );
    expect(errorOf({ FIELDTEST_SHARD_INDEX: "x", FIELDTEST_SHARD_COUNT: "2" })).toMatch(/FIELDTEST_SHARD_INDEX=x: expected a whole number/);
  });
});
