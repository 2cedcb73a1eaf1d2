import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashCanonical } from "../../src/canonical.ts";
import { structuralContent, structuralHash } from "../../src/loop/structural.ts";
import { SOUND, WITH_CACHE } from "./fixtures.ts";

describe("structuralHash", () => {
  const prose = fc.string({ minLength: 1 });

  it("ignores descriptions, rollback actions and the plan header", () => {
    fc.assert(
      fc.property(prose, prose, fc.string(), fc.nat(), (description, action, id, version) => {
        const edited = {
          ...SOUND,
          id,
          version,
          parent_id: "someone",
          tasks: SOUND.tasks.map((t) => ({ ...t, description, ...(t.rollback ? { rollback: { ...t.rollback, action } } : {}) })),
        };
        expect(structuralHash(edited)).toBe(structuralHash(SOUND));
      }),
    );
  });

  it("ignores the order and repetition of dependencies", () => {
    fc.assert(
      fc.property(fc.shuffledSubarray([...SOUND.dependencies, ...SOUND.dependencies], { minLength: 4 }), (deps) => {
        expect(structuralHash({ ...SOUND, dependencies: deps })).toBe(structuralHash(SOUND));
      }),
    );
  });

  it("changes with any structural field: a risk, a list order, a rollback requirement, an edge kind", () => {
    const base = structuralHash(WITH_CACHE);
    const withTask = (i: number, patch: object) => ({ ...WITH_CACHE, tasks: WITH_CACHE.tasks.map((t, j) => (j === i ? { ...t, ...patch } : t)) });
    expect(structuralHash(withTask(3, { risk: "low" }))).not.toBe(base);
    expect(structuralHash({ ...WITH_CACHE, tasks: [...WITH_CACHE.tasks].reverse() })).not.toBe(base);
    expect(structuralHash(withTask(1, { rollback: { ...WITH_CACHE.tasks[1]!.rollback!, requires: [] } }))).not.toBe(base);
    expect(structuralHash({ ...WITH_CACHE, dependencies: WITH_CACHE.dependencies.map((d) => ({ ...d, kind: "soft" as const })) })).not.toBe(base);
  });

  it("keeps the rollback's structure without its action", () => {
    const migrate = structuralContent(SOUND).tasks[1] as { rollback: object; description?: string };
    expect(migrate.rollback).toEqual({ trigger: "verify_migrate", requires: ["snapshot_taken"], restores: ["db"] });
    expect(migrate.description).toBeUndefined();
  });
});

describe("structuralHash written directly", () => {
  it("is the canonical hash of the structural content, for plans with and without rollbacks and with repeated dependencies", () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(WITH_CACHE.tasks, { minLength: 1 }),
        fc.array(fc.constantFrom(...SOUND.dependencies, ...WITH_CACHE.dependencies)),
        fc.boolean(),
        (tasks, dependencies, dropRollbacks) => {
          const plan = { ...WITH_CACHE, tasks: dropRollbacks ? tasks.map((t) => ({ ...t, rollback: undefined })) : tasks, dependencies };
          expect(structuralHash(plan)).toBe(hashCanonical(structuralContent(plan)));
        },
      ),
    );
  });
});
