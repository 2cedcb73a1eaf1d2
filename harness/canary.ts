import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { canaryFileSchema } from "../src/formats/canary.ts";
import { GATE_CODE_NAMES, GATE_CODES, isGateCode, type GateCode, type GateId } from "../src/formats/findings.ts";
import { InputError, loadFile } from "../src/formats/load.ts";
import { judgeCanaries, type CanaryResult } from "../src/gates/canary.ts";
import { runGates } from "../src/gates/index.ts";
import { PACKAGE_ROOT } from "./package.ts";
import { judgePackCanaries } from "../src/packs/canary.ts";
import type { CompiledPack } from "../src/packs/compile.ts";

const CodeSchema = z.enum(GATE_CODE_NAMES as [GateCode, ...GateCode[]]);

/** A gate canary file (corpus/canaries/<gate>.yaml): cases that may name built-in gate codes only. */
const CanaryFileSchema = canaryFileSchema(CodeSchema);

export type { CanaryResult };

export interface CanaryReport {
  ok: boolean;
  results: CanaryResult[];
  /** One line per failure, each naming the gate (or the pack and rule) and the fixture. */
  failures: string[];
}

const CANARY_DIR = join(PACKAGE_ROOT, "corpus", "canaries");

interface CanaryOptions {
  dir?: string;
  /** Gates to leave out (a test proves that disabling any one gate makes the canaries fail). */
  skip?: readonly GateId[];
  /** Enabled domain packs: their own canaries run after the gates' (docs/design.md §4: before any LLM spend). */
  packs?: readonly CompiledPack[];
}

/**
 * Run every canary: each gate must fire on its must-fire cases and stay silent on their near
 * twins, and every gate code must have both; then every enabled pack's canaries, judged the same
 * way on its own rules. A sweep calls this before any LLM spend.
 */
export function runCanaries(options: CanaryOptions = {}): CanaryReport {
  const dir = options.dir ?? CANARY_DIR;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError(dir, "", "canary folder not found");
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((name) => ({ name, canary: loadFile(join(dir, name), CanaryFileSchema) }));
  const gates = judgeCanaries(files, {
    codes: GATE_CODE_NAMES,
    describe: (code) => ({ owner: isGateCode(code) ? GATE_CODES[code].gate : code, name: code }),
    fire: (goal, plan) => ({
      fired: new Set(
        runGates(goal, plan, { skip: options.skip })
          .map((f) => f.code)
          .filter(isGateCode),
      ),
      errors: [],
    }),
  });
  const packs = (options.packs ?? []).map(judgePackCanaries);
  const results = [...gates.results, ...packs.flatMap((p) => p.results)];
  const failures = [...gates.failures, ...packs.flatMap((p) => p.failures)];
  return { ok: failures.length === 0, results, failures };
}
