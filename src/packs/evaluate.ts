import type { celMap } from "@bufbuild/cel";
import type { GateFinding } from "../formats/findings.ts";
import type { Goal } from "../formats/goal.ts";
import type { Plan } from "../formats/plan.ts";
import { keyPrefix } from "../gates/finding.ts";
import { ATTRIBUTE_CODES, celText, MISNAMED_ATTRIBUTE_CODE, MISTYPED_ATTRIBUTE_CODE, type CompiledPack, type CompiledRule } from "./compile.ts";
import { cel } from "./cel.ts";
import { planView } from "./view.ts";

/** A rule that could not be judged on a plan (a method called on a null field, a non-bool result). */
interface RuleError {
  code: string;
  task_id: string | null;
  message: string;
}

interface PackJudgement {
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
 * cannot move a finding. Keys are `pack.<name>:<code>:<task>:` (docs/design.md §4); a mistyped attribute
 * is `pack.<name>:attribute_mistyped:<task>:<attribute>`.
 */
export function judgePlan(goal: Goal, plan: Plan, pack: CompiledPack, owners: AttributeOwners = attributeOwners([pack])): PackJudgement {
  const view = planView(goal, plan, pack.attributes);
  const reported = view.mistyped.filter((m) => owners.get(m.name) === pack.name);
  const findings: GateFinding[] = reported.map((m) =>
    finding(pack, MISTYPED_ATTRIBUTE_CODE, "feasibility", m.task_id, m.name, `task ${m.task_id} gives attribute ${m.name} as ${JSON.stringify(m.value)}; pack ${pack.name} reads it as ${m.declared}`),
  );
  for (const m of misnamedAttributes(plan, pack, owners))
    findings.push(finding(pack, MISNAMED_ATTRIBUTE_CODE, "feasibility", m.task_id, m.name, `task ${m.task_id} gives attribute ${m.name}, which no enabled pack declares; pack ${pack.name} reads ${m.meant}`));
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

/** Spelling that does not change a name (names are lower-case, `^[a-z][a-z0-9_]*$`): the underscores. */
const spelling = (name: string) => name.replace(/_/g, "");

/** Edits (insert, delete, substitute) between two short names. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next.push(Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    row = next;
  }
  return row[b.length]!;
}

/**
 * Whether a name a task gives is a slip for a declared one: the same but for underscores; the
 * declared name with its last word cut off or one more word run on, where the words they share
 * are at least two (`monthly_cost_delta` for `monthly_cost_delta_usd`, never `schema` for
 * `schema_change` or `encryption_key` for `encryption`: those are other names); or a letter off
 * (two in a name of 10 letters or more), never in a name of fewer than 5 (`author` is not `auth`).
 */
function slipFor(given: string, declared: string): boolean {
  if (spelling(given) === spelling(declared)) return true;
  const [g, d] = [given.split("_"), declared.split("_")];
  const [short, long] = g.length <= d.length ? [g, d] : [d, g];
  if (long.length === short.length + 1 && short.length >= 2 && short.every((w, i) => w === long[i])) return true;
  const shorter = Math.min(given.length, declared.length);
  const allowed = shorter >= 10 ? 2 : shorter >= 5 ? 1 : 0;
  return allowed > 0 && editDistance(given, declared) <= allowed;
}

/**
 * Attributes a task gives that no enabled pack declares but that are a slip for one this pack owns
 * (`monthly_cost_delta` for `monthly_cost_delta_usd`): read as absent, they would let the plan
 * past the rule that reads the real name without a word, so the pack reports them.
 */
function misnamedAttributes(plan: Plan, pack: CompiledPack, owners: AttributeOwners): { task_id: string; name: string; meant: string }[] {
  const declared = Object.keys(pack.attributes).filter((name) => owners.get(name) === pack.name);
  return plan.tasks.flatMap((t) =>
    Object.keys(t.attributes ?? {}).flatMap((name) => {
      const meant = owners.has(name) ? undefined : declared.find((d) => slipFor(name, d));
      return meant === undefined ? [] : [{ task_id: t.id, name, meant }];
    }),
  );
}

/** For each attribute, the pack that reports a value of the wrong type: the first enabled one declaring it. */
type AttributeOwners = ReadonlyMap<string, string>;

/**
 * The owner of every attribute the packs declare. Packs may share an attribute (loadPacks refuses
 * conflicting types), and one mistyped value is one mistake: only its owner reports it.
 */
export function attributeOwners(packs: readonly CompiledPack[]): AttributeOwners {
  const owners = new Map<string, string>();
  for (const pack of packs) for (const name of Object.keys(pack.attributes)) if (!owners.has(name)) owners.set(name, pack.name);
  return owners;
}

/** The key detail of a rule's finding when the rule could not be judged. */
const RULE_ERROR_DETAIL = "error";

/** Whether a gate finding says a pack rule could not be judged (written by packFindings below). */
export function isRuleErrorFinding(f: Pick<GateFinding, "gate" | "code" | "key">): boolean {
  return f.gate.startsWith("pack.") && !ATTRIBUTE_CODES.has(f.code) && f.key.endsWith(`:${RULE_ERROR_DETAIL}`);
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
      ...errors.map((e) => finding(pack, e.code, family.get(e.code)!, e.task_id, RULE_ERROR_DETAIL, `rule ${e.code} of pack ${pack.name} could not be judged${e.task_id ? ` on task ${e.task_id}` : ""}: ${e.message}`)),
    ];
  });
}
