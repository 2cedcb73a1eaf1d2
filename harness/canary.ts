import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { GATE_CODE_NAMES, GATE_CODES, type GateCode, type GateId } from "../src/formats/findings.ts";
import { GoalSchema } from "../src/formats/goal.ts";
import { InputError, loadFile } from "../src/formats/load.ts";
import { PlanSchema } from "../src/formats/plan.ts";
import { runGates } from "../src/gates/index.ts";
import { PACKAGE_ROOT } from "./package.ts";

const CodeSchema = z.enum(GATE_CODE_NAMES as [GateCode, ...GateCode[]]);

/**
 * One canary case: a plan and exactly the gate codes it must fire (any other code firing is a
 * failure, so a canary also pins that its gate stays isolated). `silent_for` names the codes
 * whose must-not-fire near twin this case is.
 */
const CanaryCaseSchema = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
    note: z.string().min(1),
    fires: z.array(CodeSchema).default([]),
    silent_for: z.array(CodeSchema).default([]),
    plan: PlanSchema,
  })
  .refine((c) => c.fires.length + c.silent_for.length > 0, "a case must name the codes it fires or is silent for")
  .refine((c) => !c.fires.some((code) => c.silent_for.includes(code)), "a code cannot both fire and be silent");

/** A canary file (corpus/canaries/<gate>.yaml): one goal shared by its cases. */
export const CanaryFileSchema = z.strictObject({
  description: z.string().min(1),
  goal: GoalSchema,
  cases: z.array(CanaryCaseSchema).min(1),
});

export interface CanaryResult {
  /** `<file>#<case>` */
  fixture: string;
  code: GateCode;
  expect: "fire" | "silent";
  fired: boolean;
  ok: boolean;
}

export interface CanaryReport {
  ok: boolean;
  results: CanaryResult[];
  /** One line per failure, each naming the gate and the fixture. */
  failures: string[];
}

export const CANARY_DIR = join(PACKAGE_ROOT, "corpus", "canaries");

/**
 * Run every canary: each gate must fire on its must-fire cases and stay silent on their near
 * twins, and every gate code must have both. A sweep calls this before any LLM spend; `skip`
 * exists so a test can prove that disabling any one gate makes the canaries fail.
 */
export function runCanaries(options: { dir?: string; skip?: readonly GateId[] } = {}): CanaryReport {
  const dir = options.dir ?? CANARY_DIR;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError(dir, "", "canary folder not found");
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort();
  const results: CanaryResult[] = [];
  const failures: string[] = [];
  const covered = { fire: new Set<GateCode>(), silent: new Set<GateCode>() };

  for (const file of files) {
    const canary = loadFile(join(dir, file), CanaryFileSchema);
    for (const c of canary.cases) {
      const fixture = `${file}#${c.name}`;
      const fired = new Set(runGates(canary.goal, c.plan, { skip: options.skip }).map((f) => f.code));
      const expected: [GateCode, "fire" | "silent"][] = [
        ...c.fires.map((code) => [code, "fire"] as [GateCode, "fire"]),
        ...c.silent_for.map((code) => [code, "silent"] as [GateCode, "silent"]),
      ];
      for (const [code, expect] of expected) {
        covered[expect].add(code);
        const ok = fired.has(code) === (expect === "fire");
        results.push({ fixture, code, expect, fired: fired.has(code), ok });
        if (!ok) {
          const what = expect === "fire" ? "is silent on its must-fire canary" : "fires on its must-not-fire twin";
          failures.push(`${GATE_CODES[code].gate}: ${fixture}: ${code} ${what}`);
        }
      }
      for (const code of fired) {
        if (!c.fires.includes(code) && !c.silent_for.includes(code))
          failures.push(`${GATE_CODES[code].gate}: ${fixture}: ${code} fires but the canary does not expect it`);
      }
    }
  }
  for (const code of GATE_CODE_NAMES) {
    if (!covered.fire.has(code)) failures.push(`${GATE_CODES[code].gate}: no must-fire canary for ${code}`);
    if (!covered.silent.has(code)) failures.push(`${GATE_CODES[code].gate}: no must-not-fire canary for ${code}`);
  }
  return { ok: failures.length === 0, results, failures };
}
