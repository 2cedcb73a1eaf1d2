// fieldtest's public API: `import { runSweep, gate, ... } from "fieldtest"` (docs/guides/api.md).
// Each function takes one typed options object, validated at the boundary (a bad option throws
// one InputError naming the function and the option's path); the CLI's commands are thin layers
// over these same functions.

export { runSweep, RunSweepOptionsSchema, type RunSweepOptions, type SweepIo, type SweepResult } from "./sweep.ts";
export { loadRun, summarize, RunOptionsSchema, type RunOptions } from "./runs.ts";
export {
  compare,
  CompareOptionsSchema,
  diff,
  DiffOptionsSchema,
  gate,
  GateOptionsSchema,
  trend,
  TrendOptionsSchema,
  type CompareOptions,
  type DiffOptions,
  type GateOptions,
  type GateOutcome,
  type TrendOptions,
  type Warned,
} from "./baseline.ts";
export { checkPlan, CheckPlanOptionsSchema, type CheckOutcome, type CheckPlanOptions } from "./check.ts";

// What the functions return.
export type { LoadedRun } from "../run/load.ts";
export type { Summary } from "../../src/metrics/summary.ts";
export type { GateResult } from "../baseline/gate.ts";
export type { DiffResult } from "../baseline/diff.ts";
export type { Comparison } from "../baseline/compare.ts";
export type { TrendResult } from "../baseline/trend.ts";
export type { GateFinding } from "../../src/formats/findings.ts";
export { InputError } from "../../src/formats/load.ts";

// The run files and the inputs, as zod schemas with their types (docs/reference/formats.md).
export { ManifestSchema, type Manifest } from "../../src/formats/manifest.ts";
export { TrialRecordSchema, SpendLineSchema, type TrialRecord, type SpendLine } from "../../src/formats/records.ts";
export { SummaryFileSchema, type SummaryFile } from "../../src/formats/summary.ts";
export { SnapshotSchema, type Snapshot } from "../../src/formats/snapshot.ts";
export { GatePolicySchema, type GatePolicy } from "../baseline/policy.ts";
export { ConfigFileSchema, type ConfigFile } from "../config.ts";
export { SweepOptionsSchema } from "../run/settings.ts";
export { RunConfigSchema, type RunConfig } from "../../src/formats/run-config.ts";
export { GoalSchema, CorpusGoalSchema, type Goal, type CorpusGoal } from "../../src/formats/goal.ts";
export { PlanSchema, type Plan } from "../../src/formats/plan.ts";
export { FixtureSchema, type Fixture } from "../../src/formats/fixture.ts";

// Where the package's own data lives (its root, whatever folder the caller runs from).
export { PACKAGE_ROOT, PACKAGED_CORPUS, PACKAGED_POLICY } from "../package.ts";
