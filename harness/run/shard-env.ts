import { InputError } from "../../src/formats/input-error.ts";

/**
 * `--shard auto`: the shard's index and count from the environment of the engine that runs the
 * shards, so one command line serves every shard. Sources, first match wins:
 *
 * | engine                      | index (base)                 | count                          |
 * |-----------------------------|------------------------------|--------------------------------|
 * | any (explicit)              | FIELDTEST_SHARD_INDEX (1)    | FIELDTEST_SHARD_COUNT          |
 * | Kubernetes Indexed Job      | JOB_COMPLETION_INDEX (0)     | FIELDTEST_SHARD_COUNT          |
 * | GitLab CI `parallel:`       | CI_NODE_INDEX (1)            | CI_NODE_TOTAL                  |
 * | CircleCI `parallelism:`     | CIRCLE_NODE_INDEX (0)        | CIRCLE_NODE_TOTAL              |
 * | Buildkite `parallelism:`    | BUILDKITE_PARALLEL_JOB (0)   | BUILDKITE_PARALLEL_JOB_COUNT   |
 *
 * Kubernetes does not expose a Job's completions to its pods, so its manifest sets
 * FIELDTEST_SHARD_COUNT; GitHub Actions has no index variable, so a workflow sets the explicit
 * pair from its matrix (.github/workflows/sweep.yml).
 */
const SHARD_SOURCES = [
  { engine: "explicit", index: "FIELDTEST_SHARD_INDEX", base: 1, count: "FIELDTEST_SHARD_COUNT" },
  { engine: "Kubernetes Indexed Job", index: "JOB_COMPLETION_INDEX", base: 0, count: "FIELDTEST_SHARD_COUNT" },
  { engine: "GitLab CI", index: "CI_NODE_INDEX", base: 1, count: "CI_NODE_TOTAL" },
  { engine: "CircleCI", index: "CIRCLE_NODE_INDEX", base: 0, count: "CIRCLE_NODE_TOTAL" },
  { engine: "Buildkite", index: "BUILDKITE_PARALLEL_JOB", base: 0, count: "BUILDKITE_PARALLEL_JOB_COUNT" },
] as const;

const WHERE = "--shard auto";

/** `I/N` (1-based) for `--shard auto`; an InputError naming the variables when they are absent or wrong. */
export function shardFromEnv(env: Readonly<Record<string, string | undefined>>): string {
  const source = SHARD_SOURCES.find((s) => (env[s.index] ?? "") !== "");
  if (!source) {
    const pairs = SHARD_SOURCES.map((s) => `${s.index}${s.base === 0 ? " (0-based)" : ""} + ${s.count}`).join(", ");
    throw new InputError("environment", WHERE, `no shard index in the environment; set one of: ${pairs}`);
  }
  const whole = (name: string, min: number): number => {
    const text = env[name] ?? "";
    if (text === "") throw new InputError("environment", WHERE, `${name} is not set (${source.index} is: the ${source.engine} shard index needs its count)`);
    if (!/^\d+$/.test(text.trim()) || Number(text) < min) throw new InputError("environment", WHERE, `${name}=${text}: expected a whole number >= ${min}`);
    return Number(text);
  };
  const count = whole(source.count, 1);
  const index = whole(source.index, source.base) + (1 - source.base);
  if (index > count) throw new InputError("environment", WHERE, `${source.index}=${env[source.index]} is past the last of ${count} shards (${source.count})`);
  return `${index}/${count}`;
}
