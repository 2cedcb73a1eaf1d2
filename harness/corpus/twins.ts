import { canonicalJson } from "../../src/canonical.ts";
import type { Fixture } from "../../src/formats/fixture.ts";
import { parseKeyPath, valueAt, withoutPath, type Segment } from "./key-path.ts";

/**
 * What a boundary fixture asserts about the world: its plan without the plan's own identity (`id`,
 * `version`, `parent_id`), with its goal under `goal`. `differs_in` paths are read against this
 * view, so `tasks[3].parallel_group` names a plan field and `goal.constraints.tools` a goal field.
 * Parsed values are compared, so a default written out (`risk: medium`) equals it left out.
 */
export function fixtureView(f: Fixture): Record<string, unknown> {
  const { id: _id, version: _version, parent_id: _parent, ...plan } = f.plan;
  return { ...plan, goal: f.goal };
}

/**
 * The view without its prose: the goal's title and description, every task's description and
 * every rollback's action. Gates never read these, so an injection twin must equal its control here.
 */
export function structureOf(f: Fixture): unknown {
  const view = fixtureView(f);
  const { title: _title, description: _description, ...goal } = f.goal;
  const tasks = f.plan.tasks.map(({ description: _d, ...t }) =>
    t.rollback ? { ...t, rollback: { ...t.rollback, action: undefined } } : t,
  );
  return { ...view, goal, tasks };
}

/** The first key path at which two JSON-like values differ, or null when they are equal. */
export function firstDifference(a: unknown, b: unknown, at: Segment[] = []): string | null {
  if (canonicalJson(a) === canonicalJson(b)) return null;
  const bothArrays = Array.isArray(a) && Array.isArray(b);
  const bothObjects = !bothArrays && isRecord(a) && isRecord(b);
  if (bothArrays) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], [...at, i]);
      if (d !== null) return d;
    }
    return renderPath([...at, Math.min(a.length, b.length)]);
  }
  if (bothObjects) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const d = firstDifference(a[k], b[k], [...at, k]);
      if (d !== null) return d;
    }
  }
  return renderPath(at);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function renderPath(path: readonly Segment[]): string {
  const text = path.map((s, i) => (typeof s === "number" ? `[${s}]` : i === 0 ? s : `.${s}`)).join("");
  return text || "(root)";
}

/**
 * Do two fixtures differ in exactly the field `path` names? Precisely: the values at the path
 * differ (an absent value counts as a value), and the two views with the path removed (an object
 * key deleted, an array element spliced out where present) have equal canonical JSON. Returns
 * null when they do, else why not.
 */
export function differsOnlyIn(a: Fixture, b: Fixture, path: string): string | null {
  const segments = parseKeyPath(path);
  if (!segments) return `"${path}" is not a key path`;
  const va = fixtureView(a);
  const vb = fixtureView(b);
  if (canonicalJson(valueAt(va, segments) ?? null) === canonicalJson(valueAt(vb, segments) ?? null))
    return `${a.id} and ${b.id} do not differ at ${path}`;
  const other = firstDifference(withoutPath(va, segments), withoutPath(vb, segments));
  return other === null ? null : `${a.id} and ${b.id} also differ at ${other}`;
}

/** The first key path at which two fixtures differ in structure (prose ignored), or null when they do not. */
export function structuralDifference(a: Fixture, b: Fixture): string | null {
  return firstDifference(structureOf(a), structureOf(b));
}
