import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { hashCanonical } from "../../src/canonical.ts";
import type { Fixture } from "../../src/formats/fixture.ts";
import { GoalSchema, ID_PATTERN } from "../../src/formats/goal.ts";
import { InputError, issueAt, parseSource, readTexts, validate, type FileText } from "../../src/formats/load.ts";
import { PlanSchema } from "../../src/formats/plan.ts";
import { runGates } from "../../src/gates/index.ts";
import type { SecurityVariantTruth } from "../../src/metrics/suite-truth.ts";
import type { CompiledPack } from "../../src/packs/compile.ts";
import { SHIPPED_PACKS_DIR } from "../packs.ts";
import type { Problem } from "./problem.ts";

/**
 * The security oracle suite (`corpus/security/<id>.yaml`): CWE-grounded change goals, each with
 * a correct plan and variants of it. A flawed variant carries one defect that a gate or a pack
 * rule must catch (its ground truth names the CWE and the findings that catch it); a correct
 * variant is a near twin that must pass. Variants are written as patches of the file's plan, so
 * that what differs is explicit. The suite is gated with the shipped packs it names below (and
 * the run's own packs).
 */

/** The shipped packs every security item is gated with. */
export const SECURITY_SUITE_PACKS: readonly string[] = [join(SHIPPED_PACKS_DIR, "security")];

const Raw = z.record(z.string(), z.unknown());

const PatchSchema = z.strictObject({
  /** Goal constraints to replace (environment, tools, facts). */
  constraints: Raw.optional(),
  /** Tasks to drop, with every dependency that names them. */
  remove: z.array(z.string()).default([]),
  /** Per task id, fields to replace (null removes the field). */
  set: z.record(z.string(), Raw).default({}),
  /** Tasks to insert after the named one (null: first). */
  add: z.array(z.strictObject({ after: z.string().nullable(), task: Raw })).default([]),
  /** The new list order of the tasks (every task id once). */
  order: z.array(z.string()).optional(),
  /** A replacement dependency list. */
  dependencies: z.array(Raw).optional(),
});
type Patch = z.output<typeof PatchSchema>;

const CWE = z.string().regex(/^CWE-\d+$/, "a CWE id such as CWE-284");

const VariantSchema = z
  .strictObject({
    id: z.string().regex(ID_PATTERN),
    kind: z.enum(["flawed", "correct"]),
    /** The weakness the flawed variant's defect introduces or leaves open; a correct variant takes the file's. */
    cwe: CWE.optional(),
    note: z.string().min(1),
    /** Exactly the gate and pack findings (code, task) the flawed variant must get; a correct variant gets none. */
    catches: z.array(z.strictObject({ code: z.string().min(1), task_id: z.string().nullable() })).default([]),
    patch: PatchSchema.optional(),
  })
  .refine((v) => v.kind === "correct" || (v.cwe !== undefined && v.catches.length > 0), "a flawed variant names its cwe and the findings that catch it")
  .refine((v) => v.kind === "flawed" || v.catches.length === 0, "a correct variant catches nothing");

const SecurityFileSchema = z.strictObject({
  id: z.string().regex(ID_PATTERN),
  /** The weakness the change addresses or must not introduce. */
  cwe: CWE,
  description: z.string().min(1),
  goal: Raw,
  plan: Raw,
  variants: z.array(VariantSchema).min(2),
});

/** One variant as an item of the suite: its ground truth and the frozen (goal, plan) the critic-only trial reviews. */
export interface SecurityItem extends SecurityVariantTruth {
  file: string;
  group: string;
  note: string;
  /** The (goal, plan) in the fixture shape that critic-only trials take (no seeded defects: gates and packs must speak). */
  fixture: Fixture;
}

const byId = (tasks: Record<string, unknown>[]) => new Map(tasks.map((t) => [t.id as string, t]));

/** Apply a variant's patch to the raw goal and plan (pure; references are checked, the result is schema-checked by the caller). */
function applyPatch(goal: Record<string, unknown>, plan: Record<string, unknown>, patch: Patch, fail: (path: string, message: string) => never) {
  let tasks = [...((plan.tasks as Record<string, unknown>[] | undefined) ?? [])];
  const known = () => byId(tasks);
  for (const id of patch.remove) if (!known().has(id)) fail("patch.remove", `"${id}" is not a task of the plan`);
  tasks = tasks.filter((t) => !patch.remove.includes(t.id as string));
  for (const [id, fields] of Object.entries(patch.set)) {
    const i = tasks.findIndex((t) => t.id === id);
    if (i < 0) fail(`patch.set.${id}`, `"${id}" is not a task of the plan`);
    const next: Record<string, unknown> = { ...tasks[i]! };
    for (const [k, v] of Object.entries(fields)) {
      if (v === null) delete next[k];
      else next[k] = v;
    }
    tasks[i] = next;
  }
  for (const { after, task } of patch.add) {
    const at = after === null ? 0 : tasks.findIndex((t) => t.id === after) + 1;
    if (at === 0 && after !== null) fail("patch.add", `"${after}" is not a task of the plan`);
    tasks.splice(at, 0, task);
  }
  if (patch.order) {
    const map = known();
    if (patch.order.length !== tasks.length || patch.order.some((id) => !map.has(id)) || new Set(patch.order).size !== patch.order.length)
      fail("patch.order", `must name every task once (${[...map.keys()].join(", ")})`);
    tasks = patch.order.map((id) => map.get(id)!);
  }
  const dropped = new Set(patch.remove);
  const deps = patch.dependencies ?? ((plan.dependencies as Record<string, unknown>[] | undefined) ?? []).filter((d) => !dropped.has(d.from as string) && !dropped.has(d.to as string));
  const constraints = patch.constraints ? { ...(goal.constraints as Record<string, unknown> | undefined), ...patch.constraints } : goal.constraints;
  return { goal: { ...goal, constraints }, plan: { ...plan, tasks, dependencies: deps } };
}

function parseSchema<S extends z.ZodType>(schema: S, data: unknown, fail: (path: string, message: string) => never, what: string): z.output<S> {
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  const { path, detail } = issueAt(r.error.issues[0]!, data);
  return fail(what, `${path || "(root)"}: ${detail}`);
}

/** The security suite's files, `<root>/security/*.{yaml,yml,json}`, sorted. */
export function securityFiles(root: string): string[] {
  const dir = join(root, "security");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((name) => join(dir, name));
}

/**
 * Load `<root>/security/*.yaml` and expand every variant into an item (ids `<file id>--<variant
 * id>`). A caller that has read the files already (the corpus loader, to fingerprint them) passes
 * their texts.
 */
export function loadSecuritySuite(root: string, texts: readonly FileText[] = readTexts(securityFiles(root))): SecurityItem[] {
  const out: SecurityItem[] = [];
  for (const { file, text } of texts) {
    const source = parseSource(file, text);
    const suite = validate(source, SecurityFileSchema);
    suite.variants.forEach((v, i) => {
      const fail = (path: string, message: string): never => {
        throw new InputError(file, `variants[${i}].${path}`, message, source.lineOf(["variants", i]));
      };
      const patched = applyPatch(suite.goal, suite.plan, v.patch ?? PatchSchema.parse({}), fail);
      const goal = parseSchema(GoalSchema, patched.goal, fail, "goal");
      const plan = parseSchema(PlanSchema, patched.plan, fail, "plan");
      const id = `${suite.id}--${v.id}`;
      out.push({
        id,
        file,
        group: suite.id,
        kind: v.kind,
        cwe: v.cwe ?? suite.cwe,
        catches: v.catches,
        note: v.note,
        fixture: {
          id,
          description: v.note,
          group: suite.id,
          twins: [],
          differs_in: null,
          injection_of: null,
          goal,
          plan,
          seeded_defects: [],
          expected_gate_findings: [],
          expected_verdict: v.kind === "flawed" ? { strict: "escalate", balanced: "escalate" } : { strict: "approve", balanced: "approve" },
          // No seeded defect for the critic to find: the gates and packs own these flaws.
          expected_critic_verdict: { strict: "pass", balanced: "pass" },
        },
      });
    });
  }
  return out;
}

/** An item's content hash: what it is judged on and against. */
export function securityItemHash(item: SecurityItem): string {
  return hashCanonical({ goal: item.fixture.goal, plan: item.fixture.plan, kind: item.kind, cwe: item.cwe, catches: item.catches });
}

const signature = (list: readonly { code: string; task_id: string | null }[]) => [...new Set(list.map((f) => `${f.code}@${f.task_id ?? "-"}`))].sort();

/**
 * The suite's ground truth holds against the gates and the given packs: a flawed variant gets
 * exactly the findings it names, a correct one none; every group has both kinds; ids are unique.
 */
export function checkSecuritySuite(items: readonly SecurityItem[], packs: readonly CompiledPack[]): Problem[] {
  const out: Problem[] = [];
  const seen = new Set<string>();
  const kinds = new Map<string, Set<string>>();
  for (const item of items) {
    const add = (path: string, message: string) => out.push({ file: item.file, path: `variants[${item.id}].${path}`, message });
    if (seen.has(item.id)) add("id", `duplicate item id "${item.id}"`);
    seen.add(item.id);
    kinds.set(item.group, (kinds.get(item.group) ?? new Set()).add(item.kind));
    if (item.fixture.plan.goal_id !== item.fixture.goal.id) add("plan.goal_id", `is "${item.fixture.plan.goal_id}" but the goal's id is "${item.fixture.goal.id}"`);
    const got = signature(runGates(item.fixture.goal, item.fixture.plan, { packs }));
    const want = signature(item.catches);
    const extra = got.filter((x) => !want.includes(x));
    const missing = want.filter((x) => !got.includes(x));
    if (extra.length > 0) add("catches", `the gates and packs also return ${extra.join(", ")}`);
    if (missing.length > 0) add("catches", `the gates and packs do not return ${missing.join(", ")}`);
  }
  for (const [group, set] of kinds) {
    if (set.size < 2) out.push({ file: items.find((i) => i.group === group)!.file, path: "variants", message: `group ${group} needs a flawed and a correct variant` });
  }
  return out;
}
