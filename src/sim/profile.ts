import { fileURLToPath } from "node:url";
import { z } from "zod";
import { loadFile } from "../formats/load.ts";

const rate = z.number().min(0).max(1);

/** A simulated call's latency in ms: at most ten minutes (a Node timer past 2^31 - 1 ms fires at once). */
const latencyMs = z.number().min(0).max(600_000);

/** Fixed latency, or uniform over [min, max] milliseconds. */
const LatencySchema = z.union([latencyMs, z.strictObject({ min: latencyMs, max: latencyMs }).refine((l) => l.max >= l.min, "max < min")]);
export type Latency = z.output<typeof LatencySchema>;

/** The classic planner defects the sim can inject, named by the family their gate reports. */
export const PLANNER_DEFECTS = ["unverified_dependencies", "unsafe_sequencing", "weak_rollback"] as const;
export type PlannerDefect = (typeof PLANNER_DEFECTS)[number];

const perFamily = z.strictObject({
  feasibility: rate,
  risk: rate,
  missing_steps: rate,
  unsafe_sequencing: rate,
  unverified_dependencies: rate,
  weak_rollback: rate,
});

/** Parameters of the simulated planner and critic; src/sim/README.md gives each one's expectation. */
export const SimProfileSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().default(""),
  planner: z.strictObject({
    /** Probability that a fresh plan carries each defect (independent draws). */
    defect_rate: z.strictObject({ unverified_dependencies: rate, unsafe_sequencing: rate, weak_rollback: rate }),
    /** Probability that a revision fixes each flagged defect it carries. */
    fix_rate: rate,
    /** Probability that a revision introduces one defect the plan does not carry. */
    regression_rate: rate,
    /** Probability that one structured-output attempt answers invalid output. */
    invalid_output_rate: rate,
    latency_ms: LatencySchema,
  }),
  critic: z.strictObject({
    /** Probability of not reporting a perceived defect, by its family. */
    miss_rate: perFamily,
    /** Probability that a reported defect is filed under an advisory family (risk / missing_steps). */
    migration_rate: rate,
    /** Probability per audit of one advisory concern raised to blocker (uncheckable evidence). */
    severity_inflation_rate: rate,
    /** Probability per audit of one blocker whose evidence cites a missing task or a contradicted order. */
    hallucination_rate: rate,
    invalid_output_rate: rate,
    latency_ms: LatencySchema,
  }),
});
export type SimProfile = z.output<typeof SimProfileSchema>;

/** The sim's section of the client config: it is seeded from runSeed and each call's coordinates. */
export const SimSettingsSchema = z.strictObject({
  /** The noise profile; omitted means DEFAULT_SIM_PROFILE. Load files with loadSimProfile. */
  profile: SimProfileSchema.optional(),
  runSeed: z.number().int().default(0),
});

export const PROFILES_DIR = fileURLToPath(new URL("./profiles/", import.meta.url));

export function loadSimProfile(path: string): SimProfile {
  return loadFile(path, SimProfileSchema);
}

export const DEFAULT_SIM_PROFILE: SimProfile = loadSimProfile(`${PROFILES_DIR}default.yaml`);
