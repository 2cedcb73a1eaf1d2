import { judgeCanaries, type CanaryJudgement } from "../gates/canary.ts";
import type { CompiledPack } from "./compile.ts";
import { judgePlan } from "./evaluate.ts";

/**
 * Judge a pack's canaries (pure): every rule fires on its must-fire cases, stays silent on their
 * near twins, and is never un-judgeable on a canary plan (an evaluation error fails the canary; it
 * never counts as firing). Failures read `pack.<name>: <pack>/canaries/<file>#<case>: rule <code> ...`.
 */
export function judgePackCanaries(pack: CompiledPack): CanaryJudgement {
  const files = pack.canaries.map(({ name, canary }) => ({ name: `${pack.name}/canaries/${name}`, canary }));
  return judgeCanaries(files, {
    codes: pack.rules.map((r) => r.code),
    describe: (code) => ({ owner: pack.gate, name: `rule ${code}` }),
    fire: (goal, plan) => {
      const { findings, errors } = judgePlan(goal, plan, pack);
      return { fired: new Set(findings.map((f) => f.code)), errors: errors.map((e) => ({ code: e.code, message: e.task_id ? `${e.message} (task ${e.task_id})` : e.message })) };
    },
  });
}
