import type { CanaryFile } from "../formats/canary.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";

export interface CanaryResult {
  /** `<file>#<case>` */
  fixture: string;
  code: string;
  expect: "fire" | "silent";
  fired: boolean;
  ok: boolean;
}

export interface CanaryJudgement {
  results: CanaryResult[];
  /** One line per failure, each naming the owner (gate or pack), the fixture and the code. */
  failures: string[];
}

/** What the checks under test said on one canary plan: the codes that fired, and codes that could not be judged. */
interface CanaryFiring {
  fired: ReadonlySet<string>;
  errors: readonly { code: string; message: string }[];
}

interface CanarySubject {
  /** Every code the canaries must cover with a must-fire case and a must-not-fire twin. */
  codes: readonly string[];
  /** Who owns a code (a gate id, `pack.<name>`) and how a failure names it. */
  describe(code: string): { owner: string; name: string };
  fire(goal: Goal, plan: Plan): CanaryFiring;
}

/**
 * Judge canary files against the checks they pin (pure). Each code must fire on its must-fire
 * cases and stay silent on their near twins; a code that fires where the case does not expect it
 * fails; a code that could not be evaluated fails (it never counts as firing); and every code of
 * the subject needs both kinds of case.
 */
export function judgeCanaries(files: readonly { name: string; canary: CanaryFile }[], subject: CanarySubject): CanaryJudgement {
  const results: CanaryResult[] = [];
  const failures: string[] = [];
  const covered = { fire: new Set<string>(), silent: new Set<string>() };
  const line = (code: string, fixture: string, what: string) => {
    const { owner, name } = subject.describe(code);
    return `${owner}: ${fixture}: ${name} ${what}`;
  };
  const owned = new Set(subject.codes);

  for (const { name, canary } of files) {
    for (const c of canary.cases) {
      const fixture = `${name}#${c.name}`;
      const firing = subject.fire(canary.goal, c.plan);
      for (const e of firing.errors) failures.push(line(e.code, fixture, `could not be evaluated: ${e.message}`));
      const expected: [string, "fire" | "silent"][] = [
        ...c.fires.map((code) => [code, "fire"] as [string, "fire"]),
        ...c.silent_for.map((code) => [code, "silent"] as [string, "silent"]),
      ];
      for (const [code, expect] of expected) {
        covered[expect].add(code);
        const fired = firing.fired.has(code);
        const ok = fired === (expect === "fire");
        results.push({ fixture, code, expect, fired, ok });
        if (!ok) failures.push(line(code, fixture, expect === "fire" ? "is silent on its must-fire canary" : "fires on its must-not-fire twin"));
      }
      for (const code of firing.fired) {
        if (owned.has(code) && !c.fires.includes(code) && !c.silent_for.includes(code))
          failures.push(line(code, fixture, "fires but the canary does not expect it"));
      }
    }
  }
  for (const code of subject.codes) {
    const { owner, name } = subject.describe(code);
    if (!covered.fire.has(code)) failures.push(`${owner}: no must-fire canary for ${name}`);
    if (!covered.silent.has(code)) failures.push(`${owner}: no must-not-fire canary for ${name}`);
  }
  return { results, failures };
}
