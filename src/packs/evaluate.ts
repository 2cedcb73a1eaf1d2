import type { celMap } from "@bufbuild/cel";
import type { GateFinding } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";
import { keyPrefix } from "../gates/finding.ts";
import { celText, MISTYPED_ATTRIBUTE_CODE, type CompiledPack, type CompiledRule } from "./compile.ts";
import { cel } from "./cel.ts";
import { planView } from "./view.ts";

/** A rule that could not be judged on a plan (a method called on a null field, a non-bool result). */
export interface RuleError {
  code: string;
  task_id: string | null;
  message: string;
}

export interface PackJudgement {
  /** Rule breaches and mistyped attributes, as gate findings. */
  findings: GateFinding[];
  /** Rules that could not be judged; `packFindings` turns each into a blocker (fail closed). */
  errors: RuleError[];
}

function finding(pack: CompiledPack, code: string, family: GateFinding["family"], taskId: string | null, detail: string, message: string): GateFinding {
  return { origin: "gate", gate: pack.gate, code, family, severity: "blocker", task_id: taskId, message, key: keyPrefix(pack.gate, code, taskId) + detail };
}

/**
 * A view as CEL values, converted once: the evaluator wraps a plain object anew on every field
 * access, which made a rule over a plan two orders of magnitude slower.
 */
function toCel(v: unknown): unknown {
  const { celList, celMap } = cel();
  if (Array.isArray(v)) return celList(v.map(toCel) as Parameters<typeof celList>[0]);
  if (v !== null && typeof v === "object") return celMap(new Map(Object.entries(v).map(([k, x]) => [k, toCel(x)])) as Parameters<typeof celMap>[0]);
  return v;
}

function render(rule: CompiledRule, bindings: Record<string, unknown>): string {
  return rule.message.map((part) => (typeof part === "string" ? part : celText(part(bindings)))).join("");
}

/**
 * Judge a plan with one pack (pure). Each per-task rule runs once per task in list order and
 * reports that task; a plan rule runs once and reports no task. A rule sees only the prose-free
 * view of the plan (src/packs/view.ts), so descriptions, rollback actions and the goal's text
 * cannot move a finding. Keys are `pack.<name>:<code>:<task>:` (DESIGN.md §4); a mistyped attribute
 * is `pack.<name>:attribute_mistyped:<task>:<attribute>`.
 */
export function judgePlan(goal: Goal, plan: Plan, pack: CompiledPack, owners?: AttributeOwners): PackJudgement {
  const view = planView(goal, plan, pack.attributes);
  const reported = owners === undefined ? view.mistyped : view.mistyped.filter((m) => owners.get(m.name) === pack.name);
  const findings: GateFinding[] = reported.map((m) =>
    finding(pack, MISTYPED_ATTRIBUTE_CODE, "feasibility", m.task_id, m.name, `task ${m.task_id} gives attribute ${m.name} as ${JSON.stringify(m.value)}; pack ${pack.name} reads it as ${m.declared}`),
  );
  const errors: RuleError[] = [];
  const goalValue = toCel(view.goal);
  const planValue = toCel(view.plan) as ReturnType<typeof celMap>;
  const taskValues = [...(planValue.get("tasks") as Iterable<unknown>)];
  for (const rule of pack.rules) {
    const subjects: (number | null)[] = rule.each === "task" ? view.tasks.map((_, i) => i) : [null];
    for (const i of subjects) {
      const bindings = i === null ? { goal: goalValue, plan: planValue } : { goal: goalValue, plan: planValue, task: taskValues[i] };
      const taskId = i === null ? null : (view.tasks[i]!.id as string);
      const result = rule.when(bindings);
      if (result === true) findings.push(finding(pack, rule.code, rule.family, taskId, "", render(rule, bindings)));
      else if (result !== false) {
        const why = cel().isCelError(result) ? result.message : `the condition gave ${celText(result)}, not a bool`;
        errors.push({ code: rule.code, task_id: taskId, message: why });
      }
    }
  }
  return { findings, errors };
}

/** For each attribute, the pack that reports a value of the wrong type: the first enabled one declaring it. */
export type AttributeOwners = ReadonlyMap<string, string>;

/**
 * The owner of every attribute the packs declare. Packs may share an attribute (loadPacks refuses
 * conflicting types), and one mistyped value is one mistake: only its owner reports it.
 */
export function attributeOwners(packs: readonly CompiledPack[]): AttributeOwners {
  const owners = new Map<string, string>();
  for (const pack of packs) for (const name of Object.keys(pack.attributes)) if (!owners.has(name)) owners.set(name, pack.name);
  return owners;
}

/**
 * Every enabled pack's findings on a plan, in pack order. `owners` says which pack reports a
 * mistyped attribute (by default the first of `packs` declaring it). A rule that could not be judged blocks
 * too (fail closed): its finding carries the rule's code with key detail `error` and says why.
 */
export function packFindings(goal: Goal, plan: Plan, packs: readonly CompiledPack[], owners: AttributeOwners = attributeOwners(packs)): GateFinding[] {
  return packs.flatMap((pack) => {
    const { findings, errors } = judgePlan(goal, plan, pack, owners);
    const family = new Map(pack.rules.map((r) => [r.code, r.family]));
    return [
      ...findings,
      ...errors.map((e) => finding(pack, e.code, family.get(e.code)!, e.task_id, "error", `rule ${e.code} of pack ${pack.name} could not be judged${e.task_id ? ` on task ${e.task_id}` : ""}: ${e.message}`)),
    ];
  });
}
